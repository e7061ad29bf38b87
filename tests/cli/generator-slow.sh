#!/usr/bin/env bash
# A slow external generator: a fuzz campaign of a few cases then takes a few seconds, long
# enough for the progress meter (core/progress.hpp) to appear on a terminal.
sleep 0.4
exec "$PHASECHECK" generate shift --topology /dev/stdin
