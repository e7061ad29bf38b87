#!/usr/bin/env bash
# expect.sh CODE REGEX -- command...
# Runs the command; passes iff it exits with CODE and its combined output matches REGEX (ERE, one
# line; empty: any output). expect-all.sh with one regex.
exec bash "$(dirname "$0")/expect-all.sh" "$@"
