// Command client is the go runtime's client (lanes/README.md):
//
//	client --connect ADDR --warmup N --round-trips N --payload-bytes N
//	       --max-in-flight N [--transport tcp|tls --ca FILE]
package main

import (
	"os"

	"crossrun.invalid/lanes/go/lane"
)

func main() { os.Exit(lane.ClientMain(os.Args[1:], os.Stdout, os.Stderr)) }
