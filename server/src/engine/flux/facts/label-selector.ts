// Kubernetes label selectors as kustomize `target.labelSelector` writes them:
// `a=b`, `a==b`, `a!=b`, `a`, `!a`, `a in (x,y)`, `a notin (x,y)`, joined by commas.

export interface Requirement {
  key: string;
  op: 'exists' | 'absent' | 'in' | 'notin';
  values: string[];
}

/** Parses a selector; null when it is malformed (kustomize would reject it). */
export function parseLabelSelector(selector: string): Requirement[] | null {
  const terms: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of selector) {
    if (char === '(') depth++;
    if (char === ')') depth--;
    if (char === ',' && depth === 0) {
      terms.push(current);
      current = '';
    } else current += char;
  }
  terms.push(current);
  const requirements: Requirement[] = [];
  for (const raw of terms) {
    const term = raw.trim();
    if (term === '') continue;
    let match: RegExpExecArray | null;
    if ((match = /^([^\s!=()]+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(term))) {
      requirements.push({ key: match[1], op: match[2] as 'in' | 'notin', values: match[3].split(',').map((v) => v.trim()) });
    } else if ((match = /^([^\s!=()]+)\s*(==|=|!=)\s*([^\s!=()]*)$/.exec(term))) {
      requirements.push({ key: match[1], op: match[2] === '!=' ? 'notin' : 'in', values: [match[3]] });
    } else if ((match = /^!\s*([^\s!=()]+)$/.exec(term))) {
      requirements.push({ key: match[1], op: 'absent', values: [] });
    } else if ((match = /^([^\s!=()]+)$/.exec(term))) {
      requirements.push({ key: match[1], op: 'exists', values: [] });
    } else return null;
  }
  return requirements;
}

export function matchesSelector(requirements: Requirement[], labels: Record<string, string>): boolean {
  return requirements.every(({ key, op, values }) => {
    const has = Object.prototype.hasOwnProperty.call(labels, key);
    switch (op) {
      case 'exists':
        return has;
      case 'absent':
        return !has;
      case 'in':
        return has && values.includes(labels[key]);
      case 'notin':
        return !has || !values.includes(labels[key]);
    }
  });
}
