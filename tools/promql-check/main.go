// promql-check validates Prometheus rule groups the way Prometheus v3.14.0 (the image of kube-prometheus-stack
// 88.5.3) loads them: model/rulefmt.Parse, which parses every expression with promql/parser, checks `for`, labels,
// alert and record names, and the annotation templates. It is what `promtool check rules` runs, without promtool.
//
// Input on stdin: a JSON array of {"name": "<where the rules come from>", "groups": [<PrometheusRule spec.groups>]}.
// Output: one line per problem, "<name>: <error>"; exit 1 when there is any, 0 when every group loads.
//
//	promql-check --version
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/promql/parser"
)

// version is the Prometheus module this helper validates with; keep it equal to go.mod's.
const version = "github.com/prometheus/prometheus v0.314.0 (Prometheus v3.14.0)"

type ruleSource struct {
	Name   string          `json:"name"`
	Groups json.RawMessage `json:"groups"`
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "--version" {
		fmt.Println(version)
		return
	}
	input, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintf(os.Stderr, "promql-check: reading stdin: %v\n", err)
		os.Exit(2)
	}
	var sources []ruleSource
	if err := json.Unmarshal(input, &sources); err != nil {
		fmt.Fprintf(os.Stderr, "promql-check: stdin is not a JSON array of {name, groups}: %v\n", err)
		os.Exit(2)
	}
	p := parser.NewParser(parser.Options{})
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	failed := false
	for _, s := range sources {
		// A rule file is {groups: [...]}; JSON is YAML, which rulefmt reads.
		content, err := json.Marshal(map[string]json.RawMessage{"groups": s.Groups})
		if err != nil {
			fmt.Fprintf(os.Stderr, "promql-check: %s: %v\n", s.Name, err)
			os.Exit(2)
		}
		_, errs := rulefmt.Parse(content, false, model.UTF8Validation, p, logger)
		for _, e := range errs {
			failed = true
			fmt.Printf("%s: %v\n", s.Name, e)
		}
	}
	if failed {
		os.Exit(1)
	}
}
