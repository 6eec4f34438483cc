#!/bin/sh
# The C runtime's package artifact: its two programs and its sources, as a
# reproducible gzip'd tar (sorted names, fixed times and owners, no gzip
# timestamp) in the folder given as $1. Run from the repository root.
set -eu
out=$1
tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner \
  -cf - build/lanes/c/client build/lanes/c/server lanes/c/*.c lanes/c/*.h \
  protocol/codec.c protocol/codec.h | gzip -n -9 >"$out/crossrun-lane-c.tar.gz"
