// phasecheck.Schedule: a schedule held in Python. Phases are added from NumPy arrays, read where
// they lie (one pass, no Python object per transfer), or from tuples; every transfer and op is
// checked as a file's are (core/schedule.hpp transfer_problem, core/buffers.hpp op_problem), with
// the argument and index named. Loaded from and saved to every format (pipeline/read_schedule.hpp,
// io/json.hpp, io/schedule_binary.hpp, and MSCCL XML and MSCCL++ plans through the verified
// export of deploy/).

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/buffers.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/limits.hpp"
#include "core/traffic.hpp"
#include "deploy/msccl_export.hpp"
#include "deploy/mscclpp_export.hpp"
#include "io/json.hpp"
#include "io/schedule_binary.hpp"
#include "pipeline/check.hpp"
#include "pipeline/read_schedule.hpp"
#include "python/src/arrays.hpp"
#include "python/src/interrupt.hpp"
#include "python/src/native.hpp"
#include "python/src/objects.hpp"
#include "python/src/schedule_input.hpp"

namespace phasecheck::python {
namespace {

/// The schedules being read with the GIL released, and by how many readers (the GIL guards it).
std::unordered_map<const Schedule*, int>& readers() {
  static std::unordered_map<const Schedule*, int> readers;
  return readers;
}

/// The block `item` of a tuple-form transfer: alltoall (o, d) or (o, d, part); allgather o, (o,),
/// (o, part) or (o, None, part) as files write it.
Block read_block(const py::handle& item, const ScheduleHeader& h, const std::string& where) {
  const Rank last = h.ranks() - 1;
  const std::uint64_t last_part = h.parts - 1;
  if (h.collective == Collective::allgather && !py::isinstance<py::sequence>(item))
    return Block{static_cast<Rank>(read_count(item, where, last)), kEveryRank, 0};
  if (!py::isinstance<py::sequence>(item) || py::isinstance<py::str>(item))
    throw InputError(where + ": a block is a tuple, not " + type_name(item));
  const auto block = py::reinterpret_borrow<py::sequence>(item);
  const std::size_t n = block.size();
  const auto origin = [&] { return static_cast<Rank>(read_count(block[0], where + "[0]", last)); };
  if (h.collective == Collective::allgather) {
    if (n == 1) return Block{origin(), kEveryRank, 0};
    if (n == 2)
      return Block{origin(), kEveryRank,
                   static_cast<std::uint32_t>(read_count(block[1], where + "[1]", last_part))};
    if (n == 3 && block[1].is_none())
      return Block{origin(), kEveryRank,
                   static_cast<std::uint32_t>(read_count(block[2], where + "[2]", last_part))};
    throw InputError(where + ": an allgather's block is origin, (origin,), (origin, part) or "
                             "(origin, None, part)");
  }
  if (n != 2 && n != 3)
    throw InputError(where + ": an alltoall's block is (origin, dest) or (origin, dest, part)");
  return Block{origin(), static_cast<Rank>(read_count(block[1], where + "[1]", last)),
               n == 3 ? static_cast<std::uint32_t>(read_count(block[2], where + "[2]", last_part))
                      : 0u};
}

/// The direct message src -> dst: every part of [src, dst] (alltoall) or [src] (allgather).
void add_direct(Phase& phase, const ScheduleHeader& h, Rank src, Rank dst,
                std::vector<Block>& message) {
  if (h.parts == 1) return phase.add(src, dst, direct_block(h.collective, src, dst));
  message.resize(h.parts);
  const Block whole = direct_block(h.collective, src, dst);
  for (std::uint32_t k = 0; k < h.parts; ++k) message[k] = Block{whole.origin, whole.dest, k};
  phase.add(src, dst, message);
}

/// Transfers from an (n, 2) array of (src, dst), with `blocks` and `offsets` (CSR) when given.
void add_from_arrays(Phase& phase, const ScheduleHeader& h, const py::array& transfers,
                     const py::object& blocks, const py::object& offsets) {
  const Rank last = h.ranks() - 1;
  IntMatrix pairs(transfers, "add_phase: transfers", 2);
  pairs.describe_limit(" (the last rank)");
  if (blocks.is_none() != offsets.is_none())
    throw InputError("add_phase: blocks and offsets go together (offsets[i]..offsets[i+1] are "
                     "transfer i's rows of blocks)");
  std::vector<Block> message;
  if (blocks.is_none()) {
    with_source("add_phase: transfers",
                [&] { phase.reserve(pairs.rows(), std::uint64_t{pairs.rows()} * h.parts); });
    Rank src = 0;
    pairs.for_each(last, [&](std::size_t, std::size_t column, std::uint64_t v) {
      if (column == 0)
        src = static_cast<Rank>(v);
      else
        add_direct(phase, h, src, static_cast<Rank>(v), message);
    });
    return;
  }
  if (!is_array(blocks) || !is_array(offsets))
    throw InputError("add_phase: blocks and offsets are NumPy arrays with transfers as one");
  const auto block_array = py::reinterpret_borrow<py::array>(blocks);
  const bool allgather = h.collective == Collective::allgather;
  const std::size_t columns =
      block_array.ndim() == 2 ? static_cast<std::size_t>(block_array.shape(1)) : 0;
  const std::size_t with_part = allgather ? 2 : 3;
  if (columns != with_part && columns != with_part - 1)
    throw InputError(std::string("add_phase: blocks: an ") +
                     (allgather ? "allgather's blocks are (m, 1) origins or (m, 2) (origin, part)"
                                : "alltoall's blocks are (m, 2) (origin, dest) or (m, 3) "
                                  "(origin, dest, part)"));
  const IntMatrix block_rows(block_array, "add_phase: blocks", columns);
  const IntMatrix bounds(py::reinterpret_borrow<py::array>(offsets), "add_phase: offsets", 0);
  // What the arrays' shapes make this read allocate, before it does (an array of stride 0 may
  // claim any number of rows).
  check_memory(checked_add(checked_mul(block_rows.rows(), sizeof(Block)),
                           checked_mul(bounds.rows(), sizeof(std::uint64_t))),
               "add_phase: blocks and offsets of " + std::to_string(block_rows.rows()) + " and " +
                   std::to_string(bounds.rows()) + " rows");
  if (bounds.rows() != pairs.rows() + 1)
    throw InputError("add_phase: offsets has " + std::to_string(bounds.rows()) +
                     " entries; transfers has " + std::to_string(pairs.rows()) + " rows, so " +
                     std::to_string(pairs.rows() + 1) + " are needed");
  std::vector<std::uint64_t> first(bounds.rows());
  bounds.for_each(block_rows.rows(),
                  [&](std::size_t r, std::size_t, std::uint64_t v) { first[r] = v; });
  if (first.front() != 0)
    throw InputError("add_phase: offsets[0] is " + std::to_string(first.front()) + ", not 0");
  if (first.back() != block_rows.rows())
    throw InputError("add_phase: offsets[" + std::to_string(pairs.rows()) + "] is " +
                     std::to_string(first.back()) + "; blocks has " +
                     std::to_string(block_rows.rows()) + " rows");
  std::vector<Block> all(block_rows.rows());
  const std::uint64_t max = std::max<std::uint64_t>(last, h.parts - 1);
  block_rows.for_each(max, [&](std::size_t r, std::size_t c, std::uint64_t v) {
    const auto over = [&](std::uint64_t limit, const char* what) {
      if (v > limit)
        throw InputError("add_phase: blocks[" + std::to_string(r) + ", " + std::to_string(c) +
                         "]: " + std::to_string(v) + " is above " + std::to_string(limit) +
                         " (the last " + what + ")");
    };
    Block& b = all[r];
    if (c == 0) {
      over(last, "rank");
      b.origin = static_cast<Rank>(v);
      if (allgather) b.dest = kEveryRank;
    } else if (c == 1 && !allgather) {
      over(last, "rank");
      b.dest = static_cast<Rank>(v);
    } else {
      over(h.parts - 1, "part");
      b.part = static_cast<std::uint32_t>(v);
    }
  });
  with_source("add_phase: transfers", [&] { phase.reserve(pairs.rows(), all.size()); });
  for (std::size_t i = 0; i < pairs.rows(); ++i) {
    if (first[i + 1] < first[i])
      throw InputError("add_phase: offsets[" + std::to_string(i + 1) + "] is " +
                       std::to_string(first[i + 1]) + ", below offsets[" + std::to_string(i) +
                       "] (" + std::to_string(first[i]) + ")");
    phase.add(static_cast<Rank>(pairs.at(i, 0, last)), static_cast<Rank>(pairs.at(i, 1, last)),
              std::span<const Block>(all).subspan(first[i], first[i + 1] - first[i]));
  }
}

/// Transfers from a sequence of (src, dst) or (src, dst, blocks).
void add_from_tuples(Phase& phase, const ScheduleHeader& h, const py::sequence& transfers) {
  const Rank last = h.ranks() - 1;
  std::vector<Block> message;
  std::size_t i = 0;
  for (const py::handle item : transfers) {
    const std::string where = "add_phase: transfers[" + std::to_string(i++) + "]";
    if (!py::isinstance<py::sequence>(item) || py::isinstance<py::str>(item))
      throw InputError(where + ": a transfer is (src, dst) or (src, dst, blocks), not " +
                       type_name(item));
    const auto t = py::reinterpret_borrow<py::sequence>(item);
    if (t.size() != 2 && t.size() != 3)
      throw InputError(where + ": a transfer is (src, dst) or (src, dst, blocks); this has " +
                       std::to_string(t.size()) + " items");
    const auto src = static_cast<Rank>(read_count(t[0], where + "[0] (src)", last));
    const auto dst = static_cast<Rank>(read_count(t[1], where + "[1] (dst)", last));
    if (t.size() == 2) {
      add_direct(phase, h, src, dst, message);
      continue;
    }
    const py::object blocks = t[2];
    if (!py::isinstance<py::sequence>(blocks) || py::isinstance<py::str>(blocks))
      throw InputError(where + "[2] (blocks): a list of blocks, not " + type_name(blocks));
    message.clear();
    std::size_t j = 0;
    for (const py::handle b : py::reinterpret_borrow<py::sequence>(blocks))
      message.push_back(read_block(b, h, where + "[2][" + std::to_string(j++) + "]"));
    phase.add(src, dst, message);
  }
}

/// A buffer named by its name or its number (0 input, 1 output, 2 scratch).
Buffer read_buffer(const py::handle& object, const std::string& where) {
  if (py::isinstance<py::str>(object)) {
    const std::string name = read_text(object, where);
    if (const auto b = parse_buffer(name)) return *b;
    throw InputError(where + ": '" + name + "' is not a buffer (input, output or scratch)");
  }
  return static_cast<Buffer>(read_count(object, where, 2));
}

void add_ops(Phase& phase, const ScheduleHeader& h, const py::object& ops) {
  const auto add = [&](std::size_t i, const BufferOp& op) {
    if (const auto problem = op_problem(op, h.ranks()))
      throw InputError("add_program_phase: ops[" + std::to_string(i) + "]: " + *problem);
    phase.add(op);
  };
  if (is_array(ops)) {
    const auto array = py::reinterpret_borrow<py::array>(ops);
    const IntMatrix rows(array, "add_program_phase: ops", 7);
    std::array<std::uint64_t, 7> v{};
    // Columns: src, dst, from buffer, from slot, to buffer, to slot, count. Each column is
    // checked against its own limit once the row is complete.
    rows.for_each(UINT64_MAX, [&](std::size_t r, std::size_t c, std::uint64_t value) {
      v[c] = value;
      if (c != 6) return;
      const std::uint64_t limits[7] = {h.ranks() - 1u, h.ranks() - 1u, 2, kMaxSlots, 2, kMaxSlots,
                                       kMaxSlots};
      for (std::size_t k = 0; k < 7; ++k)
        if (v[k] > limits[k])
          throw InputError("add_program_phase: ops[" + std::to_string(r) + ", " +
                           std::to_string(k) + "]: " + std::to_string(v[k]) + " is above " +
                           std::to_string(limits[k]));
      add(r, BufferOp{static_cast<Rank>(v[0]), static_cast<Rank>(v[1]),
                      Slot{static_cast<Buffer>(v[2]), static_cast<std::uint32_t>(v[3])},
                      Slot{static_cast<Buffer>(v[4]), static_cast<std::uint32_t>(v[5])},
                      static_cast<std::uint32_t>(v[6])});
    });
    return;
  }
  if (!py::isinstance<py::sequence>(ops) || py::isinstance<py::str>(ops))
    throw InputError("add_program_phase: ops is a NumPy (n, 7) array or a list of tuples, not " +
                     type_name(ops));
  std::size_t i = 0;
  const Rank last = h.ranks() - 1;
  for (const py::handle item : py::reinterpret_borrow<py::sequence>(ops)) {
    const std::string where = "add_program_phase: ops[" + std::to_string(i) + "]";
    if (!py::isinstance<py::sequence>(item) || py::isinstance<py::str>(item))
      throw InputError(where + ": an op is (src, dst, from_buffer, from_slot, to_buffer, "
                               "to_slot[, count]), not " + type_name(item));
    const auto t = py::reinterpret_borrow<py::sequence>(item);
    if (t.size() != 6 && t.size() != 7)
      throw InputError(where + ": an op is (src, dst, from_buffer, from_slot, to_buffer, "
                               "to_slot[, count]); this has " + std::to_string(t.size()) +
                       " items");
    add(i, BufferOp{static_cast<Rank>(read_count(t[0], where + "[0] (src)", last)),
                    static_cast<Rank>(read_count(t[1], where + "[1] (dst)", last)),
                    Slot{read_buffer(t[2], where + "[2]"),
                         static_cast<std::uint32_t>(read_count(t[3], where + "[3]", kMaxSlots))},
                    Slot{read_buffer(t[4], where + "[4]"),
                         static_cast<std::uint32_t>(read_count(t[5], where + "[5]", kMaxSlots))},
                    t.size() == 7 ? static_cast<std::uint32_t>(
                                        read_count(t[6], where + "[6] (count)", kMaxSlots))
                                  : 1u});
    ++i;
  }
}

py::object block_tuple(const Block& b) {
  return b.dest == kEveryRank ? py::make_tuple(b.origin, py::none(), b.part)
                              : py::make_tuple(b.origin, b.dest, b.part);
}

/// Phase `index` of a phase table (a program's phases are ops: InputError naming `what`).
const Phase& table_phase_at(const Schedule& s, const py::object& index, const char* what);

const Phase& phase_at(const Schedule& s, const py::object& index) {
  // Negative indices count from the end, as Python's do.
  std::uint64_t i = 0;
  if (PyLong_Check(index.ptr()) && !PyBool_Check(index.ptr()) && py::int_(index) < py::int_(0)) {
    int overflow = 0;
    const long long negative = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
    // -1 is the last phase; -(n + 1) and anything below is past the first.
    const std::uint64_t back = overflow != 0 ? UINT64_MAX : static_cast<std::uint64_t>(-(negative + 1));
    if (back >= s.phases.size())
      throw py::index_error("phase " + text_of(index) + " of " + std::to_string(s.phases.size()));
    i = s.phases.size() - back - 1;
  } else {
    i = read_count(index, "phase index", UINT64_MAX);
  }
  if (i >= s.phases.size())
    throw py::index_error("phase " + std::to_string(i) + " of " +
                          std::to_string(s.phases.size()));
  return s.phases[i];
}

const Phase& table_phase_at(const Schedule& s, const py::object& index, const char* what) {
  if (s.header.buffers)
    throw InputError(std::string(what) +
                     ": this schedule is a buffer program; its phases are ops (use ops(i))");
  return phase_at(s, index);
}

py::dict layout_dict(const BufferLayout& b) {
  py::dict d;
  d["chunks"] = b.chunks;
  d["inplace"] = b.inplace;
  d["input"] = b.input;
  d["output"] = b.output;
  d["scratch"] = b.scratch;
  return d;
}

/// The schedule through a streaming writer (io::ScheduleWriter, io::BinaryScheduleWriter).
template <class Writer>
void write_with(const Schedule& s, const std::string& path) {
  write_output(path, [&](std::ostream& os) {
    Writer writer(os, s.header);
    for (const Phase& p : s.phases) writer.phase(p);
    writer.finish();
  });
}

/// A program read from MSCCL XML or an MSCCL++ plan whose execution faults cannot be written as
/// JSON (the file would not carry the faults, and would verify): CheckFailed with its report, as
/// `phasecheck import` refuses it.
void refuse_faulty_import(const Schedule& s, const std::string& what) {
  if (!s.header.imported || s.header.imported->faults.empty()) return;
  std::optional<verify::Report> report;
  {
    ReadingSchedule reading(s);
    py::gil_scoped_release unlocked;
    report = pipeline::verify_schedule(s, nullptr);
  }
  raise_check_failed({std::move(*report), "<schedule>", s.header},
                     what + ": the program's execution faults, which the file would not carry: "
                            "nothing written");
}

void save(const Schedule& s, const std::string& path, const std::string& format) {
  const std::string source = "<schedule>";
  refuse_faulty_import(s, "save as " + format);
  if (format == "json") return write_with<io::ScheduleWriter>(s, path);
  if (format == "binary") return write_with<io::BinaryScheduleWriter>(s, path);
  deploy::VerifiedExport made;
  if (format == "msccl") {
    ReadingSchedule reading(s);
    py::gil_scoped_release unlocked;
    made = deploy::export_msccl(s, source, {});
  } else if (format == "mscclpp") {
    ReadingSchedule reading(s);
    py::gil_scoped_release unlocked;
    made = deploy::export_mscclpp(s, source, {});
  } else {
    throw InputError("save: format '" + format + "' is not one of json, binary, msccl, mscclpp");
  }
  switch (made.stage) {
    case deploy::VerifiedExport::Stage::exported:
      write_output(path, [&](std::ostream& os) { os << made.text; });
      return;
    case deploy::VerifiedExport::Stage::refused:
      raise_check_failed({made.input, source, s.header},
                         "save: the schedule does not verify, so it is not exported as " + format);
    case deploy::VerifiedExport::Stage::self_check_failed:
      raise_check_failed({made.read_back, source, s.header},
                         "save: the " + format +
                             " file made from the schedule does not verify (an exporter bug)");
  }
}

}  // namespace

ReadingSchedule::ReadingSchedule(const Schedule& schedule) : schedule_(schedule) {
  ++readers()[&schedule_];
}

ReadingSchedule::~ReadingSchedule() {
  auto& count = readers();
  if (--count[&schedule_] == 0) count.erase(&schedule_);
}

void ReadingSchedule::refuse_change(const Schedule& schedule, const std::string& what) {
  if (readers().contains(&schedule))
    throw InputError(what + ": the schedule is being verified, drawn or saved by another "
                            "thread; change it when that call has returned");
}

void bind_schedule(py::module_& m) {
  py::class_<Schedule>(m, "Schedule",
                       "A schedule held in memory: phases of transfers (a phase table) or of "
                       "buffer ops (a program, format 3)")
      .def(py::init([](const py::object& ranks, const py::object& collective,
                       const py::object& topology, const py::object& algorithm,
                       const py::object& buffers, const py::object& parts,
                       const py::object& traffic, const py::object& inplace) {
             return Schedule{
                 make_schedule_header(ranks, read_text(collective, "collective"), topology,
                                      read_text(algorithm, "algorithm"), buffers, parts, traffic,
                                      read_flag(inplace, "inplace")),
                 {}};
           }),
           py::arg("ranks") = py::none(), py::arg("collective") = py::str("alltoall"),
           py::arg("topology") = py::none(), py::kw_only(), py::arg("algorithm") = py::str(""),
           py::arg("buffers") = py::none(), py::arg("parts") = 1, py::arg("traffic") = py::none(),
           py::arg("inplace") = py::bool_(false))
      .def_static(
          "load",
          [](const py::object& path) {
            const std::string file = path_of(path, "load: path");
            const std::string source = input_name(file);
            py::gil_scoped_release unlocked;
            Schedule s;
            Checkpoint checkpoint;
            pipeline::read_schedule_file(
                file,
                [&](const ScheduleHeader& h) {
                  // The whole table is held: refused before its phases are read when it cannot
                  // fit (as gate and generate --buffers refuse theirs).
                  with_source(source, [&] {
                    check_memory(held_table_bytes(h),
                                 "Schedule.load of " + std::to_string(h.ranks()) +
                                     " ranks (the whole table is held; phasecheck.verify(path) "
                                     "streams it)");
                  });
                  s.header = h;
                },
                [&](const Phase& p) {
                  checkpoint();
                  s.phases.push_back(p);
                },
                // A program's phases keep their ops only, as add_program_phase and generate
                // make them (the verifier runs the program itself).
                io::Tables::ops_only);
            return s;
          },
          py::arg("path"),
          "Any schedule file, told by content: JSON (formats 1-4), the binary stream, MSCCL XML "
          "or an MSCCL++ plan (lowered to its buffer program; the runtime model judges it)")
      .def(
          "save",
          [](const Schedule& s, const py::object& path, const py::object& format) {
            save(s, path_of(path, "save: path"), read_text(format, "save: format"));
          },
          py::arg("path"), py::arg("format") = py::str("json"),
          "json, binary (phase tables), msccl or mscclpp (verified, exported, read back and "
          "verified again: CheckFailed when it does not verify)")
      .def("json",
           [](const Schedule& s) {
             refuse_faulty_import(s, "json()");
             return python_text(io::schedule_to_json(s));
           },
           "The JSON file's text")
      .def(
          "add_phase",
          [](Schedule& s, const py::object& transfers, const py::object& blocks,
             const py::object& offsets, const py::object& label_object) {
            const std::string label = read_text(label_object, "add_phase: label");
            const ScheduleHeader& h = s.header;
            ReadingSchedule::refuse_change(s, "add_phase");
            if (h.buffers)
              throw InputError("add_phase: this schedule is a buffer program (buffers=...): "
                               "use add_program_phase");
            Phase phase(label);
            if (is_array(transfers)) {
              add_from_arrays(phase, h, py::reinterpret_borrow<py::array>(transfers), blocks,
                              offsets);
            } else {
              if (!blocks.is_none() || !offsets.is_none())
                throw InputError("add_phase: blocks and offsets go with a NumPy transfers array");
              if (!py::isinstance<py::sequence>(transfers) || py::isinstance<py::str>(transfers))
                throw InputError("add_phase: transfers is a NumPy (n, 2) array or a list of "
                                 "tuples, not " + type_name(transfers));
              add_from_tuples(phase, h, py::reinterpret_borrow<py::sequence>(transfers));
            }
            const std::span<const Transfer> added = phase.transfers();
            const Traffic* traffic = h.traffic ? &*h.traffic : nullptr;
            for (std::size_t i = 0; i < added.size(); ++i)
              if (const auto problem = transfer_problem(phase, added[i], h.collective, h.ranks(),
                                                        h.parts, traffic, h.pieces()))
                throw InputError("add_phase: transfers[" + std::to_string(i) + "]: " + *problem);
            s.phases.push_back(std::move(phase));
          },
          py::arg("transfers"), py::arg("blocks") = py::none(), py::arg("offsets") = py::none(),
          py::arg("label") = py::str(""),
          "Appends a phase: transfers is a NumPy (n, 2) integer array of (src, dst), read in "
          "place, or a list of (src, dst) / (src, dst, blocks). (src, dst) carries the direct "
          "message; blocks and offsets (NumPy, CSR) give each transfer's blocks instead")
      .def(
          "add_program_phase",
          [](Schedule& s, const py::object& ops, const py::object& label_object) {
            const std::string label = read_text(label_object, "add_program_phase: label");
            ReadingSchedule::refuse_change(s, "add_program_phase");
            if (!s.header.buffers)
              throw InputError("add_program_phase: this schedule is a phase table: give "
                               "buffers=... to Schedule for a buffer program");
            Phase phase(label);
            add_ops(phase, s.header, ops);
            s.phases.push_back(std::move(phase));
          },
          py::arg("ops"), py::arg("label") = py::str(""),
          "Appends a phase of a buffer program: ops is a NumPy (n, 7) integer array or a list of "
          "(src, dst, from_buffer, from_slot, to_buffer, to_slot[, count]); buffers are 'input', "
          "'output', 'scratch' (0, 1, 2)")
      .def("__len__", [](const Schedule& s) { return s.phases.size(); })
      .def_property_readonly("phases", [](const Schedule& s) { return s.phases.size(); })
      .def_property_readonly("ranks", [](const Schedule& s) { return s.header.ranks(); })
      .def_property_readonly("collective",
                             [](const Schedule& s) { return std::string(s.header.collective_name()); })
      .def_property(
          "algorithm", [](const Schedule& s) { return s.header.algorithm; },
          [](Schedule& s, const py::object& name) {
            ReadingSchedule::refuse_change(s, "algorithm");
            s.header.algorithm = read_text(name, "algorithm");
          })
      .def_property_readonly("topology", [](const Schedule& s) { return Machine{s.header.topology}; })
      .def_property_readonly("parts", [](const Schedule& s) { return s.header.parts; })
      .def_property_readonly("parameters",
                             [](const Schedule& s) {
                               py::dict d;
                               for (const auto& [key, value] : s.header.parameters.entries())
                                 d[py::str(key)] = value;
                               return d;
                             })
      .def_property_readonly("buffers",
                             [](const Schedule& s) -> py::object {
                               if (!s.header.buffers) return py::none();
                               return layout_dict(*s.header.buffers);
                             })
      .def_property_readonly("imported",
                             [](const Schedule& s) { return s.header.imported.has_value(); })
      .def(
          "label", [](const Schedule& s, const py::object& i) { return phase_at(s, i).label(); },
          py::arg("phase"))
      .def(
          "pairs",
          [](const Schedule& s, const py::object& i) {
            const Phase& p = table_phase_at(s, i, "pairs");
            py::array_t<std::uint32_t> out({static_cast<py::ssize_t>(p.size()), py::ssize_t{2}});
            auto w = out.mutable_unchecked<2>();
            for (std::size_t k = 0; k < p.size(); ++k) {
              w(k, 0) = p[k].src;
              w(k, 1) = p[k].dst;
            }
            return out;
          },
          py::arg("phase"), "The phase's transfers as a NumPy (n, 2) array of (src, dst)")
      .def(
          "transfers",
          [](const Schedule& s, const py::object& i) {
            const Phase& p = table_phase_at(s, i, "transfers");
            py::list out;
            for (const Transfer& t : p.transfers()) {
              py::list blocks;
              for (const Block& b : p.blocks(t)) blocks.append(block_tuple(b));
              out.append(py::make_tuple(t.src, t.dst, blocks));
            }
            return out;
          },
          py::arg("phase"),
          "The phase's transfers: (src, dst, blocks), a block (origin, dest, part), dest None for "
          "an allgather's")
      .def(
          "ops",
          [](const Schedule& s, const py::object& i) {
            if (!s.header.buffers)
              throw InputError("ops: this schedule is a phase table; its phases are transfers "
                               "(use transfers(i) or pairs(i))");
            py::list out;
            for (const BufferOp& op : phase_at(s, i).ops())
              out.append(py::make_tuple(op.src, op.dst, std::string(to_string(op.from.buffer)),
                                        op.from.index, std::string(to_string(op.to.buffer)),
                                        op.to.index, op.count));
            return out;
          },
          py::arg("phase"),
          "A program's phase: (src, dst, from_buffer, from_slot, to_buffer, to_slot, count)")
      .def("__eq__",
           [](const Schedule& a, const py::object& b) -> py::object {
             if (!py::isinstance<Schedule>(b)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
             return py::bool_(a == b.cast<const Schedule&>());
           })
      .def("__repr__", [](const Schedule& s) {
        return "<phasecheck.Schedule " + std::string(s.header.collective_name()) + " of " +
               std::to_string(s.header.ranks()) + " ranks, " + std::to_string(s.phases.size()) +
               " phases" + (s.header.buffers ? ", a buffer program" : "") +
               (s.header.algorithm.empty() ? "" : ", " + s.header.algorithm) + ">";
      });
}

}  // namespace phasecheck::python
