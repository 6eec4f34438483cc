// Command server is the go runtime's server (lanes/README.md):
//
//	server --listen ADDR [--transport tcp|tls --cert FILE --key FILE]
package main

import (
	"os"

	"crossrun.invalid/lanes/go/lane"
)

func main() { os.Exit(lane.ServerMain(os.Args[1:], os.Stdout, os.Stderr)) }
