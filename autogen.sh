#!/bin/sh
# Generates configure and the Makefile templates from configure.ac/Makefile.am.
set -e
cd "$(dirname "$0")"
autoreconf --install --force >/dev/null
echo "autogen: now run ./configure && make"
