#!/usr/bin/env bash
# fuzz-replay.sh PHASECHECK DIR: fuzz the deliberately wrong generator, then replay the schedule
# it wrote: the replay must give the same failure.
export PHASECHECK=$1
"$1" fuzz --generator "$(dirname "$0")/generator-wrong.sh" --cases 40 --out "$2" >/dev/null
"$1" verify "$2/schedule.json"
