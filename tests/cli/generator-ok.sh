#!/usr/bin/env bash
# An external generator for `phasecheck fuzz --generator`: reads a topology on stdin, prints a
# schedule. This one wraps `phasecheck generate shift` (PHASECHECK names the program).
exec "$PHASECHECK" generate shift --topology /dev/stdin
