# --report json of every command that prints a result: each document parses and has the keys
# docs/formats.md ("Command reports") lists, in order (report-shape.py); csv where it is a table.
set(SHAPE python3 ${CMAKE_CURRENT_SOURCE_DIR}/report-shape.py)
function(report_test name shape code assertion)
  add_test(NAME cli.report_${name} COMMAND ${SHAPE} ${shape} ${code} "${assertion}" -- ${ARGN})
endfunction()

report_test(sync sync-list 0
  "d['verdict'] == 'pass' and d['table'] == {'verdict': 'pass', 'failed': None} and d['check']['verdict'] == 'pass' and d['synchronizations'] == len(d['list']) and set(d['list'][0]) == {'after', 'before'}"
  ${PC} sync ${EX}/faraj-yuan-fig1/faraj-yuan.json --list --report json)
report_test(sync_table_fails sync 1
  "d['verdict'] == 'fail' and d['table']['verdict'] == 'fail' and d['table']['failed'].startswith('contention')"
  ${PC} sync ${CMAKE_CURRENT_SOURCE_DIR}/bad/fig1-contention.json --report json)
report_test(program_table_fails program 1
  "d['verdict'] == 'fail' and d['table']['verdict'] == 'fail' and d['replay']['verdict'] == 'pass'"
  ${PC} program ${CMAKE_CURRENT_SOURCE_DIR}/bad/fig1-contention.json --report json)
report_test(sync_stdin sync 0 "d['schedule'] == '<stdin>'"
  bash -c "\"$0\" sync - --report json < \"$1\"" ${PC} ${EX}/faraj-yuan-fig1/faraj-yuan.json)
report_test(program program 0
  "d['verdict'] == 'pass' and d['replay']['verdict'] == 'pass' and d['sync'] == 'pairwise' and list(d['listings']) == ['0'] and d['programs'] == 6"
  ${PC} program ${EX}/faraj-yuan-fig1/faraj-yuan.json --rank 0 --report json)
report_test(program_barrier program 0 "d['synchronizations'] is None and d['listings'] == {}"
  ${PC} program ${EX}/faraj-yuan-fig1/faraj-yuan.json --sync barrier --report json)
report_test(mutate mutate 0
  "d['verdict'] == 'pass' and d['caught'] == d['invalid'] > 0 and all(set(c) == {'fault', 'mutants', 'invalid', 'caught', 'missed', 'over_strict', 'claims_only', 'example'} for c in d['classes'])"
  ${PC} mutate ${EX}/faraj-yuan-fig1/faraj-yuan.json --per-class 3 --report json)
report_test(optimal_direct optimal-direct 0
  "d['verdict'] == 'pass' and d['optimum'] == {'lower': 9, 'upper': 9, 'proven': True, 'proof': d['optimum']['proof']} and d['witness']['check']['verdict'] == 'pass'"
  ${PC} optimal --topology ${EX}/faraj-yuan-fig1/topology.json --report json)
report_test(optimal_forwarding optimal-forwarding 0
  "d['verdict'] == 'pass' and d['least_C1']['proven'] and [p['C1'] for p in d['frontier'] if p['pareto']] == [2, 3] and all(p['check']['verdict'] == 'pass' for p in d['frontier'])"
  bash -c "\"$0\" topology fully-connected --ranks 4 --ports 1 | \"$0\" optimal --topology - --mode forwarding --report json" ${PC})
report_test(fuzz fuzz 0
  "d['verdict'] == 'pass' and d['results'][0]['name'] == 'linear' and d['results'][0]['cases'] == 5"
  ${PC} fuzz linear --cases 5 --report json)
# A generator that takes no machine: nothing is checked, which is not a pass.
report_test(fuzz_nothing_checked fuzz 1
  "d['verdict'] == 'not-evaluated' and d['results'][0]['verdict'] == 'not-evaluated'"
  ${PC} fuzz --generator ${CMAKE_CURRENT_SOURCE_DIR}/generator-refuses.sh --cases 5 --report json)
cli_test(fuzz_nothing_checked_text 1 "not evaluated: every algorithm gave up"
         ${PC} fuzz --generator ${CMAKE_CURRENT_SOURCE_DIR}/generator-refuses.sh --cases 5)
report_test(whatif_hierarchical whatif-hierarchical-factor 0
  "d['verdict'] == 'pass' and d['rows'][0] == {'sizes': '2,2,1', 'p': 5, 'steps': d['rows'][0]['steps'], 'compact': d['rows'][0]['compact'], 'bound': d['rows'][0]['bound'], 'gap': d['rows'][0]['gap'], 'compact_gap': d['rows'][0]['compact_gap'], 'inefficient': d['rows'][0]['inefficient'], 'verified': 'yes'}"
  ${PC} whatif hierarchical-factor --sizes 2,2,1 --report json)
report_test(whatif_cluster whatif-cluster 0
  "d['verdict'] == 'pass' and d['rows'] == [{'sizes': '2,2,1', 'p': 5, 'nodes': 3, 'hierarchical_factor': 9, 'cluster_coloring': 8, 'bound': 8, 'optimum': 8, 'hf_gap': 1, 'cc_gap': 0, 'verified': 'yes'}]"
  ${PC} whatif cluster --sizes 2,2,1 --report json)
report_test(whatif_bruck_index whatif-bruck-index 0
  "d['best_radix'] is None and d['bytes_default'] and [r['radix'] for r in d['rows']] == [2, 3, 4, 5]"
  ${PC} whatif bruck-index --ranks 5 --report json)
report_test(whatif_bruck_index_best whatif-bruck-index 0
  "d['best_radix'] in (2, 3, 4, 5) and d['bytes'] == 4096 and not d['bytes_default']"
  ${PC} whatif bruck-index --ranks 5 --ts 1e-5 --tw 1e-9 --bytes 4KiB --report json)
report_test(whatif_congestion whatif-congestion 0
  "d['seeds'] == [1, 2] and [r['algorithm'] for r in d['rows']] == ['shift', 'randomized-sendrecv'] and d['rows'][1]['runs'] == 2"
  ${PC} whatif congestion --topology ${EX}/hypercube-3/topology.json --algorithms shift,randomized-sendrecv --seeds 1..2 --report json)
report_test(whatif_optimality whatif-optimality-cluster 0
  "[r['sizes'] for r in d['rows']] == ['2', '1,1', '3', '2,1', '1,1,1'] and all(r['proof'] != 'unknown' for r in d['rows'])"
  ${PC} whatif optimality --family cluster --max-ranks 3 --report json)
report_test(whatif_optimality_kport whatif-optimality-kport 0
  "{r['collective'] for r in d['rows']} == {'alltoall', 'allgather'}"
  ${PC} whatif optimality --family kport --max-ranks 3 --report json)
cli_test(whatif_csv 0 "^sizes,p,steps,compact,bound,gap,compact_gap,inefficient,verified"
         ${PC} whatif hierarchical-factor --sizes 2,2,1 --report csv)
cli_test(whatif_csv_quotes 0 "^\"2,2,1\",5,"
         ${PC} whatif hierarchical-factor --sizes 2,2,1 --report csv)
cli_test(whatif_bad_report 2 "did you mean 'json'"
         ${PC} whatif bruck-index --ranks 5 --report jsn)
# Undecided: verdict unknown, the optimum a range, exit 1 (never a pass).
report_test(optimal_unknown optimal-direct 1
  "d['verdict'] == 'unknown' and not d['optimum']['proven'] and d['optimum']['lower'] < d['optimum']['upper'] == 132 and d['best_algorithm'] is None"
  ${PC} optimal --topology ${CMAKE_CURRENT_SOURCE_DIR}/good/ring-12.json --timeout 0.05 --symmetry none --report json)
report_test(whatif_experiment whatif-experiment 0
  "d['machines'] == ['faraj-yuan-fig1'] and {r['status'] for r in d['rows'] if r['algorithm'] == 'faraj-yuan, pair-wise sync'} == {'ok'} and [r['milliseconds'] for r in d['rows'] if r['algorithm'] == 'SimGrid pair'] == [None] and d['rows'][-1]['status'] == 'bound'"
  ${PC} whatif experiment --paper faraj-yuan --topologies ${EX}/faraj-yuan-fig1/topology.json --bytes 1KiB --report json)
report_test(run run 0
  "d['verdict'] == 'pass' and d['data_errors'] == 0 and d['bytes'] == 4096 and d['library'] == 'MPI_Alltoall' and set(d['seconds']) == {'schedule', 'library'}"
  ${PC} run ${EX}/faraj-yuan-fig1/faraj-yuan.json --bytes 4KiB --repeats 1 --report json)
report_test(simulate simulate 0
  "d['verdict'] == 'pass' and d['table'] == 'pass' and d['throughput_MBps']['exceeds_peak'] is False and d['throughput_MBps']['schedule'] <= d['throughput_MBps']['peak_bound']"
  ${PC} simulate ${EX}/faraj-yuan-fig1/faraj-yuan.json --topology ${EX}/faraj-yuan-fig1/topology.json --bytes 1KiB --repeats 1 --report json)
# algorithms: every parameter typed, from the one declaration each algorithm makes.
add_test(NAME cli.report_algorithms_json
         COMMAND bash -c "\"$0\" algorithms --report json | python3 -c 'import json,sys; d = json.load(sys.stdin); assert list(d) == [\"command\", \"algorithms\"]; b = [a for a in d[\"algorithms\"] if a[\"name\"] == \"bruck-index\"][0]; r = [p for p in b[\"parameters\"] if p[\"name\"] == \"radix\"][0]; assert r == {\"name\": \"radix\", \"type\": \"unsigned\", \"min\": 2, \"max\": \"p\", \"default\": \"2\", \"help\": r[\"help\"]}, r; assert all(list(a) == [\"name\", \"summary\", \"reference\", \"library\", \"in_place\", \"parameters\"] for a in d[\"algorithms\"]); assert {a[\"library\"] for a in d[\"algorithms\"]} == {None, \"Open MPI\", \"MPICH\", \"NCCL\", \"RCCL\"}'"
                 ${PC})
cli_test(report_algorithms_csv 0 "^algorithm,parameters,summary,reference"
         ${PC} algorithms --report csv)

# import and export: with -o, what was written (on standard output the data is the answer).
report_test(import_trace import-trace 0
  "d['verdict'] == 'not-evaluated' and d['ranks'] == 6 and d['pairs']['of'] == 30 and d['next'].startswith('phasecheck verify ')"
  ${PC} import simgrid-trace ${CMAKE_CURRENT_SOURCE_DIR}/good/simgrid-ring-6.trace -o ${TMP}/report-trace.json --report json)
report_test(import_msccl import-msccl 0
  "d['verdict'] == 'pass' and d['faults'] == [] and d['output'].endswith('report-relay.json')"
  ${PC} import msccl ${MSCCL}/relay-through-scratch-3.xml -o ${TMP}/report-relay.json --report json)
report_test(import_msccl_faults import-msccl 1
  "d['verdict'] == 'fail' and d['output'] is None and d['faults'][0]['kind'] == 'race' and set(d['faults'][0]['steps'][0]) == {'gpu', 'threadblock', 'step'}"
  ${PC} import msccl ${BAD}/msccl-race.xml -o ${TMP}/report-never-written.json --report json)
report_test(export_msccl export-msccl 0
  "d['stage'] == 'exported' and d['schedule']['verdict'] == 'pass' and 'not-evaluated' in [c['verdict'] for c in d['read_back']['checks']] and d['gpus'] == 8"
  ${PC} export msccl ${EX}/fully-connected-8/shift.json -o ${TMP}/report-shift.xml --report json)
report_test(export_msccl_refused export-msccl 1
  "d['verdict'] == 'fail' and d['stage'] == 'refused' and d['output'] is None and d['read_back'] is None and d['schedule']['verdict'] == 'fail'"
  ${PC} export msccl ${EX}/faraj-yuan-fig1/linear.json -o ${TMP}/report-never.xml --report json)
cli_test(import_report_json_needs_output 2 "--report json describes what was written: give -o FILE"
         ${PC} import msccl ${MSCCL}/relay-through-scratch-3.xml --report json)
cli_test(export_report_json_needs_output 2 "--report json describes what was written: give -o FILE"
         ${PC} export msccl ${EX}/fully-connected-8/shift.json --report json)

# deploy: every schedule with its verdict; a refused one with its report, nothing written.
report_test(deploy_emit_c deploy 0
  "d['verdict'] == 'pass' and d['emit_c'] and d['schedules'][0]['function'] == 'phasecheck_shift_alltoall' and d['schedules'][0]['report']['verdict'] == 'pass' and d['schedules'][0]['replay']['verdict'] == 'pass'"
  ${PC} deploy --emit-c ${EX}/fully-connected-8/shift.json -o ${TMP}/report-shift.c --report json)
report_test(deploy_refused deploy 1
  "d['verdict'] == 'fail' and d['output'] is None and d['schedules'][0]['refusal'].startswith('it does not verify') and d['schedules'][0]['report']['verdict'] == 'fail'"
  ${PC} deploy ${CMAKE_CURRENT_SOURCE_DIR}/bad/fig1-contention.json -o ${TMP}/report-never.so --report json)
cli_test(deploy_report_json_needs_file 2 "with --emit-c give -o FILE.c"
         ${PC} deploy --emit-c ${EX}/fully-connected-8/shift.json -o - --report json)
# Issue 39: export mscclpp's report.
report_test(export_mscclpp export-mscclpp 0
  "d['stage'] == 'exported' and d['schedule']['verdict'] == 'pass' and d['read_back']['verdict'] == 'pass' and d['gpus'] == 8 and d['threadblocks'] == 64 and d['ops'] > 0"
  ${PC} export mscclpp ${EX}/fully-connected-8/shift.json -o ${TMP}/report-shift.mscclpp.json --report json)
report_test(export_mscclpp_refused export-mscclpp 1
  "d['verdict'] == 'fail' and d['stage'] == 'refused' and d['output'] is None and d['read_back'] is None and d['schedule']['verdict'] == 'fail'"
  ${PC} export mscclpp ${EX}/faraj-yuan-fig1/linear.json -o ${TMP}/report-never.mscclpp.json --report json)
