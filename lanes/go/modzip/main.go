// Command modzip writes the go runtime's module zip as the Go module proxy
// serves it (OUT/@v/VERSION.zip, every entry under MODULE@VERSION/, and
// OUT/@v/VERSION.mod), with golang.org/x/mod/zip, the go command's own
// rules for what a module zip holds. It is a module of its own, so it is
// not part of the zip it makes.
//
//	modzip -dir lanes/go -version v1.0.0 -out DIR
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

func main() {
	dir := flag.String("dir", ".", "the module's folder (holding go.mod)")
	version := flag.String("version", "v1.0.0", "the module version")
	out := flag.String("out", "", "the folder that gets @v/VERSION.zip and .mod")
	flag.Parse()
	if *out == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: modzip -dir DIR -version vX.Y.Z -out DIR")
		os.Exit(2)
	}
	if err := run(*dir, *version, *out); err != nil {
		fmt.Fprintf(os.Stderr, "modzip: %v\n", err)
		os.Exit(1)
	}
}

func run(dir, version, out string) error {
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return err
	}
	path := modfile.ModulePath(gomod)
	if path == "" {
		return fmt.Errorf("%s/go.mod names no module", dir)
	}
	m := module.Version{Path: path, Version: version}
	if err := module.Check(m.Path, m.Version); err != nil {
		return err
	}
	at := filepath.Join(out, "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := zip.CreateFromDir(&buf, m, dir); err != nil {
		return err
	}
	name := filepath.Join(at, version+".zip")
	if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
		return err
	}
	// The go command's own check of a downloaded zip.
	if _, err := zip.CheckZip(m, name); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(at, version+".mod"), gomod, 0o644)
}
