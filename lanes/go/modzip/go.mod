module crossrun.invalid/lanes/go/modzip

go 1.23.0

require golang.org/x/mod v0.24.0
