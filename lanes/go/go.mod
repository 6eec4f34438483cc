module crossrun.invalid/lanes/go

go 1.22
