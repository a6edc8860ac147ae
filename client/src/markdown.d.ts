// scripts/build.mjs bundles `.md` files as text (esbuild's text loader): the rule docs travel
// inside the extension's own bundle, so every host (desktop, browser) has them offline.
declare module '*.md' {
  const text: string;
  export default text;
}
