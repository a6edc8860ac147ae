// Reads paths on stdin; prints one JSON line per file: {"path":..., "docs":[canonical tree per document]} (go-yaml v3 Node decoding, aliases expanded up to a budget)
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"gopkg.in/yaml.v3"
)

type budget struct{ n int }

func canon(n *yaml.Node, b *budget) interface{} {
	b.n++
	if b.n > 200000 {
		return "BUDGET"
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil
		}
		return canon(n.Content[0], b)
	case yaml.MappingNode:
		pairs := [][2]interface{}{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			pairs = append(pairs, [2]interface{}{canon(n.Content[i], b), canon(n.Content[i+1], b)})
		}
		return map[string]interface{}{"m": pairs}
	case yaml.SequenceNode:
		items := []interface{}{}
		for _, c := range n.Content {
			items = append(items, canon(c, b))
		}
		return map[string]interface{}{"s": items}
	case yaml.ScalarNode:
		return n.Value
	case yaml.AliasNode:
		return canon(n.Alias, b)
	}
	return "?"
}

func main() {
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	for sc.Scan() {
		p := sc.Text()
		data, err := os.ReadFile(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			continue
		}
		dec := yaml.NewDecoder(bytes.NewReader(data))
		docs := []interface{}{}
		msg := ""
		for {
			var n yaml.Node
			if err := dec.Decode(&n); err != nil {
				if !errors.Is(err, io.EOF) {
					msg = err.Error()
				}
				break
			}
			docs = append(docs, canon(&n, &budget{}))
		}
		enc.Encode(map[string]interface{}{"path": p, "docs": docs, "error": msg})
	}
}
