#!/bin/sh
# The C runtime's package artifact: its two programs and its sources, as a
# gzip'd tar in the folder given as $1. Run from the repository root. With
# GNU tar the archive is reproducible (sorted names, fixed times and owners,
# no gzip timestamp); another tar makes it all the same, and the runner's
# second packing then reports it as not reproducible.
set -eu
out=$1
files="build/lanes/c/client build/lanes/c/server $(ls lanes/c/*.c lanes/c/*.h) \
protocol/codec.c protocol/codec.h protocol/histogram.c protocol/histogram.h"
if tar --version 2>/dev/null | grep -q 'GNU tar'; then
  # shellcheck disable=SC2086
  tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner \
    -cf - $files | gzip -n -9 >"$out/crossrun-lane-c.tar.gz"
else
  # shellcheck disable=SC2086
  tar -cf - $files | gzip -n -9 >"$out/crossrun-lane-c.tar.gz"
fi
