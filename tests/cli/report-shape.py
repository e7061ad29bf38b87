#!/usr/bin/env python3
"""report-shape.py SHAPE [EXIT] [ASSERTION] -- command...

Runs the command, requires exit code EXIT (default 0) and one JSON document on standard output
whose keys are exactly those docs/formats.md ("Command reports") lists for SHAPE, in that order,
then evaluates ASSERTION (a Python expression over the document `d`) and requires it true."""
import json
import subprocess
import sys

# The top-level keys of each command's --report json, in order (docs/formats.md).
SHAPES = {
    "sync": ["command", "verdict", "schedule", "algorithm", "collective", "topology", "messages",
             "phases", "contending_pairs", "dependence_edges", "synchronizations",
             "ordered_by_program_order", "table", "check"],
    "sync-list": ["command", "verdict", "schedule", "algorithm", "collective", "topology",
                  "messages", "phases", "contending_pairs", "dependence_edges",
                  "synchronizations", "ordered_by_program_order", "table", "check", "list"],
    "program": ["command", "verdict", "schedule", "algorithm", "collective", "topology", "sync",
                "programs", "operations", "synchronizations", "table", "replay", "listings"],
    "mutate": ["command", "verdict", "schedule", "algorithm", "topology", "seed", "per_class",
               "program", "contention_counts", "classes", "invalid", "caught"],
    "optimal-direct": ["command", "verdict", "mode", "topology", "source", "collective",
                       "lower_bound", "clique", "best_algorithm", "optimum", "steps", "witness"],
    "optimal-forwarding": ["command", "verdict", "mode", "topology", "source", "collective",
                           "ranks", "ports", "max_transfer", "least_C1", "frontier", "bruck", "why",
                           "steps"],
    "run": ["command", "verdict", "schedule", "algorithm", "collective", "ranks", "where", "bytes",
            "chunk_bytes", "separation", "repeats", "data_errors", "error_lines", "table",
            "seconds", "library", "ratio"],
    "simulate": ["command", "verdict", "schedule", "algorithm", "collective", "ranks", "where",
                 "bytes", "chunk_bytes", "separation", "repeats", "data_errors", "error_lines",
                 "table", "seconds", "library", "ratio", "throughput_MBps"],
    "sweep": ["command", "verdict", "format", "subject", "family", "ranks", "buffers", "set",
              "ranged", "rows"],
    "fuzz": ["command", "verdict", "seed", "cases", "seconds", "max_size", "results"],
    "import-trace": ["command", "format", "verdict", "source", "output", "state", "call", "calls",
                     "ranks", "messages", "phases", "pairs", "self_messages", "topology", "next"],
    "import-msccl": ["command", "format", "verdict", "source", "output", "summary", "phases",
                     "faults"],
    "deploy": ["command", "verdict", "output", "emit_c", "schedules"],
    "export-msccl": ["command", "format", "verdict", "stage", "source", "output", "steps", "gpus",
                     "channels", "schedule", "read_back"],
    "export-mscclpp": ["command", "format", "verdict", "stage", "source", "output", "ops",
                       "threadblocks", "gpus", "schedule", "read_back"],
    "whatif-hierarchical-factor": ["command", "verdict", "rows"],
    "whatif-cluster": ["command", "verdict", "rows"],
    "whatif-bruck-index": ["command", "verdict", "ranks", "ports", "ts", "tw", "bytes",
                           "bytes_default", "best_radix", "break_even_bytes", "rows"],
    "whatif-congestion": ["command", "verdict", "topology", "source", "seeds", "selection", "rows"],
    "whatif-optimality-cluster": ["command", "verdict", "family", "max_ranks", "rows"],
    "whatif-optimality-kport": ["command", "verdict", "family", "max_ranks", "rows"],
    "whatif-experiment": ["command", "verdict", "paper", "bandwidth", "latency", "machines",
                          "rows"],
}
CHECK_KEYS = ["name", "verdict", "summary", "counterexample"]


def main():
    args = sys.argv[1:]
    dash = args.index("--")
    shape, rest, command = args[0], args[1:dash], args[dash + 1:]
    code = int(rest[0]) if rest else 0
    assertion = rest[1] if len(rest) > 1 else "True"
    run = subprocess.run(command, capture_output=True, text=True)
    if run.returncode != code:
        sys.exit(f"expected exit {code}, got {run.returncode}\n{run.stdout}\n{run.stderr}")
    d = json.loads(run.stdout)
    if list(d) != SHAPES[shape]:
        sys.exit(f"keys {list(d)}\nexpected {SHAPES[shape]}")
    for key in ("check", "replay"):
        if key in d and list(d[key]) != CHECK_KEYS:
            sys.exit(f"{key}: keys {list(d[key])}, expected {CHECK_KEYS}")
    if not eval(assertion, {}, {"d": d}):
        sys.exit(f"assertion failed: {assertion}\n{json.dumps(d, indent=2)[:4000]}")


main()
