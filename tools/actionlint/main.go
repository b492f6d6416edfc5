// The actionlint command of github.com/rhysd/actionlint, built from its Go module at the version go.mod pins, so
// .ci/run lints the generated pull-request workflows (.github/workflows, .forgejo/workflows) with the real linter.
// Its own cmd/actionlint/main.go is this same call of Command.Main; a module cannot `go build` another module's main
// package by path inside this project's cache, so the helper repeats it.
package main

import (
	"os"

	"github.com/rhysd/actionlint"
)

func main() {
	cmd := actionlint.Command{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	os.Exit(cmd.Main(os.Args))
}
