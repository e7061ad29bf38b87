"""InputError: a ValueError naming the argument and the index, for every wrong type or value
from Python; a refused phase is not added; nothing crashes the interpreter."""

import numpy as np
import pytest

import phasecheck


def eight():
    return phasecheck.Schedule(8)


def program(p=4):
    return phasecheck.Schedule(p, buffers={"chunks": 1})


CASES = [
    # add_phase, NumPy
    (lambda: eight().add_phase(np.array([[0, 1], [1, 2], [2, 3], [3, 9]])),
     "add_phase: transfers[3, 1]: 9 is above 7 (the last rank)"),
    (lambda: eight().add_phase(np.array([[0, 1], [1, -3]])),
     "add_phase: transfers[1, 1]: -3 is negative"),
    (lambda: eight().add_phase(np.array([[0, -1]], dtype=np.int8)),
     "add_phase: transfers[0, 1]: -1 is negative"),
    (lambda: eight().add_phase(np.array([[0, 2**64 - 1]], dtype=np.uint64)),
     "add_phase: transfers[0, 1]: 18446744073709551615 is above 7 (the last rank)"),
    (lambda: eight().add_phase(np.array([[0.0, 1.0]])),
     "add_phase: transfers: dtype float64 is not an integer type (use int32, int64, uint32, ...)"),
    (lambda: eight().add_phase(np.array([[True, False]])),
     "add_phase: transfers: dtype bool is not an integer type"),
    (lambda: eight().add_phase(np.array([[0, "x"]], dtype=object)),
     "add_phase: transfers: dtype object is not an integer type"),
    (lambda: eight().add_phase(np.zeros((5, 3), dtype=np.int32)),
     "add_phase: transfers: shape (5, 3) is not (n, 2)"),
    (lambda: eight().add_phase(np.zeros(4, dtype=np.int32)),
     "add_phase: transfers: shape (4,) is not (n, 2)"),
    (lambda: eight().add_phase(np.zeros((2, 2, 2), dtype=np.int32)),
     "add_phase: transfers: shape (2, 2, 2) is not (n, 2)"),
    # add_phase, tuples
    (lambda: eight().add_phase([(0, True)]),
     "add_phase: transfers[0][1] (dst): bool is not an integer"),
    (lambda: eight().add_phase([(0, 1), (1.5, 2)]),
     "add_phase: transfers[1][0] (src): float is not an integer"),
    (lambda: eight().add_phase([(0, 1), ("x", 2)]),
     "add_phase: transfers[1][0] (src): str is not an integer"),
    (lambda: eight().add_phase([(0, 1), (1, 8)]), "add_phase: transfers[1][1] (dst): 8 is above 7"),
    (lambda: eight().add_phase([(0, 1), (-1, 2)]),
     "add_phase: transfers[1][0] (src): -1 is negative"),
    (lambda: eight().add_phase([(0, 2**70)]),
     "add_phase: transfers[0][1] (dst): 1180591620717411303424 is above 7"),
    (lambda: eight().add_phase([(0, 1, 2, 3)]),
     "add_phase: transfers[0]: a transfer is (src, dst) or (src, dst, blocks); this has 4 items"),
    (lambda: eight().add_phase([7]),
     "add_phase: transfers[0]: a transfer is (src, dst) or (src, dst, blocks), not int"),
    (lambda: eight().add_phase("01"),
     "add_phase: transfers is a NumPy (n, 2) array or a list of tuples, not str"),
    (lambda: eight().add_phase(((0, 1) for _ in range(1))),
     "add_phase: transfers is a NumPy (n, 2) array or a list of tuples, not generator"),
    (lambda: eight().add_phase([(0, 1, "blocks")]),
     "add_phase: transfers[0][2] (blocks): a list of blocks, not str"),
    (lambda: eight().add_phase([(0, 1, [(2,)])]),
     "add_phase: transfers[0][2][0]: an alltoall's block is (origin, dest) or "
     "(origin, dest, part)"),
    (lambda: eight().add_phase([(0, 1, [(0, 1, 1)])]),
     "add_phase: transfers[0][2][0][2]: 1 is above 0"),
    # add_phase, blocks and offsets
    (lambda: eight().add_phase(np.array([[0, 1]]), blocks=np.array([[0, 1]])),
     "add_phase: blocks and offsets go together"),
    (lambda: eight().add_phase([(0, 1)], blocks=np.array([[0, 1]]), offsets=np.array([0, 1])),
     "add_phase: blocks and offsets go with a NumPy transfers array"),
    (lambda: eight().add_phase(np.array([[0, 1]]), blocks=np.array([[0, 1]]),
                               offsets=np.array([0, 1, 1])),
     "add_phase: offsets has 3 entries; transfers has 1 rows, so 2 are needed"),
    (lambda: eight().add_phase(np.array([[0, 1]]), blocks=np.array([[0, 9]]),
                               offsets=np.array([0, 1])),
     "add_phase: blocks[0, 1]: 9 is above 7"),
    (lambda: eight().add_phase(np.array([[0, 1]]), blocks=np.array([[0, 1, 2, 3]]),
                               offsets=np.array([0, 1])),
     "add_phase: blocks: an alltoall's blocks are (m, 2) (origin, dest) or (m, 3)"),
    (lambda: eight().add_phase(np.array([[0, 1]]), blocks=np.array([[0, 1]]),
                               offsets=np.array([1, 1])),
     "add_phase: offsets[0] is 1, not 0"),
    (lambda: eight().add_phase(np.array([[0, 1], [1, 2]]), blocks=np.array([[0, 1], [1, 2]]),
                               offsets=np.array([0, 2, 1])),
     "add_phase: offsets[2] is 1; blocks has 2 rows"),
    (lambda: eight().add_phase(np.array([[0, 1]]), blocks=np.array([[0.0, 1.0]]),
                               offsets=np.array([0, 1])),
     "add_phase: blocks: dtype float64 is not an integer type"),
    # add_program_phase
    (lambda: program().add_program_phase(np.zeros((2, 6), dtype=int)),
     "add_program_phase: ops: shape (2, 6) is not (n, 7)"),
    (lambda: program().add_program_phase(np.array([[0, 1, 0, 1, 5, 0, 1]])),
     "add_program_phase: ops[0, 4]: 5 is above 2"),
    (lambda: program().add_program_phase(np.array([[0, 1, 0, -1, 1, 0, 1]])),
     "add_program_phase: ops[0, 3]: -1 is negative"),
    (lambda: program().add_program_phase([(0, 1, "inbox", 1, "output", 0)]),
     "add_program_phase: ops[0][2]: 'inbox' is not a buffer (input, output or scratch)"),
    (lambda: program().add_program_phase([(0, 4, "input", 1, "output", 0)]),
     "add_program_phase: ops[0][1] (dst): 4 is above 3"),
    (lambda: program().add_program_phase([(0, 1, "input", 1, "output", 0), (0, 1, "input")]),
     "add_program_phase: ops[1]: an op is (src, dst, from_buffer, from_slot, to_buffer, "
     "to_slot[, count]); this has 3 items"),
    (lambda: program().add_program_phase([(0, 1, "input", 1, "output", 0, 0.5)]),
     "add_program_phase: ops[0][6] (count): float is not an integer"),
    (lambda: program().add_program_phase("ops"),
     "add_program_phase: ops is a NumPy (n, 7) array or a list of tuples, not str"),
    (lambda: eight().add_program_phase([(0, 1, 0, 1, 1, 0)]),
     "add_program_phase: this schedule is a phase table"),
    (lambda: program().add_phase([(0, 1)]), "add_phase: this schedule is a buffer program"),
    # Schedule()
    (lambda: phasecheck.Schedule(-1), "ranks: -1 is negative"),
    (lambda: phasecheck.Schedule(2.0), "ranks: float is not an integer"),
    (lambda: phasecheck.Schedule(True), "ranks: bool is not an integer"),
    (lambda: phasecheck.Schedule("8"), "ranks: str is not an integer"),
    (lambda: phasecheck.Schedule(4, topology=phasecheck.topology.fully_connected(8)),
     "ranks: 4, but the topology has 8 ranks"),
    (lambda: phasecheck.Schedule(), "Schedule: give ranks, a topology, or both"),
    (lambda: phasecheck.Schedule(4, "reduce"), "collective: unknown collective 'reduce'"),
    (lambda: phasecheck.Schedule(4, topology="fully-connected"),
     "topology: a phasecheck.Topology is needed"),
    (lambda: phasecheck.Schedule(4, parts=0), "parts: 0; a message has at least one part"),
    (lambda: phasecheck.Schedule(4, parts=-2), "parts: -2 is negative"),
    (lambda: phasecheck.Schedule(4, buffers={"chunk": 1}), "buffers: 'chunk' is not a key"),
    (lambda: phasecheck.Schedule(4, buffers=[1]), "buffers: a dict of chunks, input, output"),
    (lambda: phasecheck.Schedule(4, buffers={"scratch": -1}), "buffers['scratch']: -1 is negative"),
    (lambda: phasecheck.Schedule(4, "alltoallv"), "collective alltoallv needs traffic="),
    (lambda: phasecheck.Schedule(4, traffic=np.ones((4, 4), dtype=int)),
     'traffic= belongs to collective="alltoallv"'),
    (lambda: phasecheck.Schedule(4, "alltoallv", traffic=np.ones((3, 3), dtype=int)),
     "traffic: a (4, 4) matrix of element counts is needed"),
    (lambda: phasecheck.Schedule(2, "alltoallv", traffic=np.array([[0, 1], [-1, 0]])),
     "traffic[1, 0]: -1 is negative"),
    # strings and flags the module checks itself
    (lambda: eight().add_phase([(0, 1)], label=3), "add_phase: label: a str is needed, not int"),
    (lambda: program().add_program_phase([], label=None),
     "add_program_phase: label: a str is needed, not NoneType"),
    (lambda: phasecheck.generate(3, phasecheck.topology.ring(4)), "name: a str is needed, not int"),
    (lambda: phasecheck.Schedule(4, 1), "collective: a str is needed, not int"),
    (lambda: phasecheck.Schedule(4, algorithm=1), "algorithm: a str is needed, not int"),
    (lambda: setattr(eight(), "algorithm", 5), "algorithm: a str is needed, not int"),
    (lambda: phasecheck.Schedule(4, inplace=1), "inplace: True or False is needed, not int"),
    (lambda: eight().save("never-written.json", format=None),
     "save: format: a str is needed, not NoneType"),
    (lambda: phasecheck.draw(eight(), "never-written.svg", links="yes"),
     "links: True or False is needed, not str"),
    (lambda: phasecheck.topology.mesh(2, 2, wraparound=1),
     "wraparound: True or False is needed, not int"),
    (lambda: phasecheck.topology.parse(5), "text: a str is needed, not int"),
    (lambda: phasecheck.fuzz(lambda t: None, contention_free="x"),
     "contention_free: True or False is needed, not str"),
    (lambda: phasecheck.fuzz(lambda t: None, max_size=100000), "max_size: 100000 is above 1000"),
    # indices of a schedule's phases
    (lambda: eight().label(1.5), "phase index: float is not an integer"),
    (lambda: eight().pairs("0"), "phase index: str is not an integer"),
    # verify, draw, fuzz, limits, gate
    (lambda: phasecheck.verify(42),
     "schedule: a phasecheck.Schedule or a schedule file's path is needed, not int"),
    (lambda: phasecheck.verify(eight(), 5),
     "topology: a path (str, bytes or os.PathLike) is needed, not int"),
    (lambda: phasecheck.verify(eight(), threads=-1), "threads: -1 is negative"),
    (lambda: phasecheck.verify(eight(), threads=4096), "threads: 4096 is above 1024"),
    (lambda: phasecheck.verify("/nonexistent/s.json"),
     "/nonexistent/s.json: cannot open the file (No such file or directory)"),
    (lambda: phasecheck.fuzz(lambda t: None, cases=-1), "cases: -1 is negative"),
    (lambda: phasecheck.fuzz(lambda t: None, seed=1.5), "seed: float is not an integer"),
    (lambda: phasecheck.set_limits(max_memory=-1), "max_memory: -1 is negative"),
    (lambda: phasecheck.set_limits(max_input_size="1G"), "max_input_size: str is not an integer"),
    (lambda: phasecheck.gate_cases(3), "manifest: a path (str, bytes or os.PathLike) is needed, not int"),
]


@pytest.mark.parametrize("call, message", CASES, ids=[m[:60] for _, m in CASES])
def test_input_error_names_the_argument_and_index(call, message):
    with pytest.raises(phasecheck.InputError) as error:
        call()
    assert isinstance(error.value, ValueError)
    assert message in str(error.value), str(error.value)


def test_input_error_is_a_value_error():
    assert issubclass(phasecheck.InputError, ValueError)
    with pytest.raises(ValueError):
        eight().add_phase([(0, 9)])


def test_a_refused_phase_is_not_added():
    s = eight()
    s.add_phase([(0, 1)])
    with pytest.raises(phasecheck.InputError):
        s.add_phase(np.array([[0, 1], [1, 2], [2, 3], [3, 9]]))
    with pytest.raises(phasecheck.InputError):
        s.add_phase([(0, 1), (1, "x")])
    assert len(s) == 1
    assert s.pairs(0).tolist() == [[0, 1]]


def test_fuzz_refuses_what_is_not_callable():
    # Regression (a bug this suite found, fixed): fuzz(5) raises pybind11's TypeError "_fuzz():
    # incompatible function arguments.
    with pytest.raises(phasecheck.InputError, match="function"):
        phasecheck.fuzz(5, cases=1)


def test_an_index_past_the_phases_is_an_index_error():
    with pytest.raises(IndexError, match="phase 0 of 0"):
        eight().label(0)


@pytest.mark.parametrize("dtype", [">u2", ">i4", ">i8"])
def test_non_native_byte_order_is_read_by_value(dtype):
    # Regression (a bug this suite found, fixed): add_phase reads an array of non-native byte
    # order (a big-endian dtype on x86) as if it were native: np.array([[0, 1], [2, 3]],
    # dtype=">i4") is refused with "transfers[0, 1]: 16777216 is above 7", and worse,
    # np.array([[0, 256], [512, 768]], dtype=">u2") on 8 ranks is silently ACCEPTED as the
    # transfers (0, 1) and (2, 3) instead of refused (256 is above 7).
    s = eight()
    s.add_phase(np.array([[0, 1], [2, 3]], dtype=dtype))
    assert s.pairs(0).tolist() == [[0, 1], [2, 3]]
    with pytest.raises(phasecheck.InputError, match=r"transfers\[0, 1\]: 256 is above 7"):
        eight().add_phase(np.array([[0, 256], [512, 768]], dtype=dtype))


@pytest.mark.parametrize("value", [2**63, 2**64 - 1])
def test_unsigned_64_bit_arguments_take_their_whole_range(value, restore_limits):
    # Regression (a bug this suite found, fixed): an integer argument whose limit is 2^64 - 1
    # refuses every value from 2^63 on with a message that contradicts itself:
    # set_limits(max_memory=2**63) raises "max_memory: 9223372036854775808 is above
    # 18446744073709551615", fuzz(f, seed=2**64 - 1) raises "seed: 18446744073709551615 is above
    # 18446744073709551615" (arrays.cpp read_count treats the overflow of
    # PyLong_AsLongLongAndOverflow as above any limit).
    phasecheck.set_limits(max_memory=value)
    assert phasecheck.limits()["max_memory"] == value
    result = phasecheck.fuzz(lambda machine: None, cases=1, seed=value)
    assert result.verdict == "not-evaluated"


def test_above_64_bits_is_refused():
    with pytest.raises(phasecheck.InputError, match=r"max_memory: 18446744073709551616 is above"):
        phasecheck.set_limits(max_memory=2**64)
    with pytest.raises(phasecheck.InputError, match=r"max_memory: -1 is negative"):
        phasecheck.set_limits(max_memory=-1)


def test_a_str_that_is_not_utf8_names_the_argument():
    # Regression (a bug this suite found, fixed): a str with a lone surrogate (what os.fsdecode
    # makes of a byte that is not UTF-8) as a label, name or algorithm raises RuntimeError "Unable
    # to cast Python instance to C++ type", not InputError naming the argument (arrays.cpp
    # read_text).
    with pytest.raises(phasecheck.InputError, match="add_phase: label"):
        eight().add_phase([(0, 1)], label="\udcff")


def test_negative_phase_indices_count_from_the_end_as_in_python():
    s = eight()
    s.add_phase([(0, 1)], label="first")
    s.add_phase([(1, 2)], label="last")
    assert s.label(-1) == "last" and s.label(-2) == "first"
    assert s.transfers(-1) == [(1, 2, [(1, 2, 0)])]
    with pytest.raises(IndexError, match="phase -3 of 2"):
        s.label(-3)
    with pytest.raises(IndexError, match="phase 2 of 2"):
        s.label(2)
