// phasecheck-runner: executes per-rank programs (docs/programs.md) with MPI point-to-point calls
// on real buffers and checks every byte. Two forms, one binary:
//   phasecheck.programs/2, a phase table's programs: executed here (below);
//   phasecheck.programs/3, a buffer program's (format 3): buffer_program.cpp, on real input,
//   output and scratch buffers.
//
// One source set, built twice: against Open MPI (runner/CMakeLists.txt, MPI::MPI_CXX) and with
// SimGrid's smpicxx for simulated networks. It depends on MPI, nlohmann JSON and the standard
// library only, so that both compilers see the same code.
//
// Execution of version 2 (Faraj & Yuan, Section 5; docs/run.md): every rank walks its program;
// `recv` and `send` are MPI_Irecv / MPI_Isend of the blocks the op lists, packed back to back;
// `wait` is MPI_Waitall, after which received blocks are unpacked into the rank's holdings (so a
// later phase may forward them); `sync-send` / `sync-recv` are zero-byte messages on their own
// tag; `barrier` is MPI_Barrier. Block [o, d, part] of a message of B bytes holds the bytes
// [part B / parts, (part + 1) B / parts) of message o -> d, filled with pattern(o, d, offset), a
// hash of the three; after each call every rank compares every block it must end with against
// the pattern. Forwarding a block the rank does not hold is an error (and sends zero bytes in its
// place).
//
// Output (rank 0, one JSON object on stdout): ranks, bytes, chunk_bytes (version 3), repeats,
// errors (summed over ranks and calls: every call is checked, outside its time),
// schedule_seconds (median over repeats of the slowest rank's time per call) and
// library_seconds (the same for the library's MPI_Alltoall or MPI_Allgather on the same data,
// in the same run). The first few errors go to stderr, one line each.

#include <mpi.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "buffer_program.hpp"
#include "common.hpp"

namespace {

using phasecheck::runner::BufferRank;
using phasecheck::runner::ErrorLog;
using phasecheck::runner::kSyncTag;
using phasecheck::runner::own_program;
using phasecheck::runner::parse_for_rank;
using phasecheck::runner::pattern;

using Key = std::tuple<std::int64_t, std::int64_t, std::int64_t>;  // origin, dest (-1: all), part

struct Op {
  enum Kind { send, recv, wait, sync_send, sync_recv, barrier } kind;
  int peer = 0;
  int phase = 0;
  std::vector<Key> contents;
};

struct Plan {
  int ranks = 0;
  bool alltoall = true;
  std::int64_t parts = 1;
  std::vector<Op> ops;  // this rank's
};

/// Offsets [begin, end) of block `part` within a message of `bytes` bytes.
std::pair<std::uint64_t, std::uint64_t> span(std::uint64_t bytes, std::int64_t parts,
                                             std::int64_t part) {
  const auto p = static_cast<std::uint64_t>(parts), i = static_cast<std::uint64_t>(part);
  return {bytes * i / p, bytes * (i + 1) / p};
}

std::vector<std::uint8_t> expected(const Key& k, std::uint64_t bytes, std::int64_t parts) {
  const auto [o, d, part] = k;
  const auto [begin, end] = span(bytes, parts, part);
  std::vector<std::uint8_t> v(end - begin);
  for (std::uint64_t i = begin; i < end; ++i) v[i - begin] = pattern(o, d, i);
  return v;
}

Plan read_plan(const nlohmann::json& j, const char* path, int rank) {
  Plan plan;
  plan.ranks = j.at("ranks").get<int>();
  plan.alltoall = j.at("collective") == "alltoall";
  plan.parts = j.at("parts").get<std::int64_t>();
  // The runner trusts nothing of the file: each number is checked before it divides or indexes
  // (1024 is phasecheck's kMaxParts).
  const auto bad = [&](const std::string& what) {
    throw std::runtime_error(std::string(path) + ": " + what);
  };
  if (plan.ranks < 1) bad("\"ranks\" must be at least 1");
  if (plan.parts < 1 || plan.parts > 1024) bad("\"parts\" must be in [1, 1024]");
  const auto& program = own_program(j);
  if (program.at("rank").get<int>() != rank)
    throw std::runtime_error(std::string(path) + ": programs out of order");
  static const std::map<std::string, Op::Kind> kinds = {
      {"send", Op::send},           {"recv", Op::recv},           {"wait", Op::wait},
      {"sync-send", Op::sync_send}, {"sync-recv", Op::sync_recv}, {"barrier", Op::barrier}};
  for (const auto& o : program.at("ops")) {
    Op op{kinds.at(o.at("op").get<std::string>())};
    op.phase = o.at("phase").get<int>();
    if (o.contains("peer")) op.peer = o.at("peer").get<int>();
    if (op.peer < -1 || op.peer >= plan.ranks) bad("a peer out of range");
    if (o.contains("contents"))
      for (const auto& b : o.at("contents")) {
        op.contents.emplace_back(b.at(0).get<std::int64_t>(), b.at(1).get<std::int64_t>(),
                                 b.at(2).get<std::int64_t>());
        const auto& [origin, dest, part] = op.contents.back();
        if (origin < 0 || origin >= plan.ranks || dest < -1 || dest >= plan.ranks || part < 0 ||
            part >= plan.parts)
          bad("a block out of range");
      }
    plan.ops.push_back(std::move(op));
  }
  return plan;
}

struct Rank {
  int rank;
  const Plan& plan;
  std::uint64_t bytes;
  std::map<Key, std::vector<std::uint8_t>> held;
  std::map<Key, std::vector<std::uint8_t>> own;  ///< the rank's own messages, made once
  ErrorLog log;

  void error(const std::string& e) { log.add(e); }

  /// After each call, outside its time: every block checked, the errors counted.
  void finish_call() {
    check();
    log.end_call();
  }
  const ErrorLog& errors() const { return log; }

  /// Before each call: the blocks this rank starts with (its own messages).
  void reset() {
    if (own.empty())  // filled once; every call starts from a copy
      for (std::int64_t part = 0; part < plan.parts; ++part)
        for (int d = 0; d < (plan.alltoall ? plan.ranks : 1); ++d) {
          const Key k{rank, plan.alltoall ? d : -1, part};
          own[k] = expected(k, bytes, plan.parts);
        }
    held = own;
  }

  std::uint64_t size_of(const std::vector<Key>& contents) const {
    std::uint64_t n = 0;
    for (const auto& [o, d, part] : contents) {
      const auto [b, e] = span(bytes, plan.parts, part);
      n += e - b;
    }
    return n;
  }

  /// One execution of the program.
  void run() {
    struct Pending {
      const Op* op;
      std::vector<std::uint8_t> buffer;
    };
    std::vector<Pending> recvs, sends;  // buffers must stay put until the wait
    std::vector<MPI_Request> requests;
    recvs.reserve(plan.ops.size());
    sends.reserve(plan.ops.size());
    std::vector<MPI_Request> syncs;
    const auto tag = [](const Op& op) { return op.phase % kSyncTag; };
    for (const Op& op : plan.ops) {
      switch (op.kind) {
        case Op::recv: {
          requests.emplace_back();
          const std::uint64_t n = size_of(op.contents);
          // One block not yet held: straight into its place, no copy (the fast path of direct
          // schedules). Otherwise into a buffer, unpacked after the wait.
          if (op.contents.size() == 1 && !held.count(op.contents[0])) {
            std::vector<std::uint8_t>& slot = held[op.contents[0]];
            slot.resize(n);
            MPI_Irecv(slot.data(), static_cast<int>(n), MPI_BYTE, op.peer, tag(op), MPI_COMM_WORLD,
                      &requests.back());
            break;
          }
          recvs.push_back({&op, std::vector<std::uint8_t>(n)});
          MPI_Irecv(recvs.back().buffer.data(), static_cast<int>(n), MPI_BYTE, op.peer, tag(op),
                    MPI_COMM_WORLD, &requests.back());
          break;
        }
        case Op::send: {
          if (op.contents.size() == 1) {  // one block held: sent from where it is
            if (const auto it = held.find(op.contents[0]); it != held.end()) {
              requests.emplace_back();
              MPI_Isend(it->second.data(), static_cast<int>(it->second.size()), MPI_BYTE, op.peer,
                        tag(op), MPI_COMM_WORLD, &requests.back());
              break;
            }
          }
          std::vector<std::uint8_t> buffer;
          buffer.reserve(size_of(op.contents));
          for (const Key& k : op.contents) {
            const auto it = held.find(k);
            if (it == held.end()) {
              const auto [b, e] = span(bytes, plan.parts, std::get<2>(k));
              error("phase " + std::to_string(op.phase) + ": sends block [" +
                    std::to_string(std::get<0>(k)) + "," + std::to_string(std::get<1>(k)) +
                    "] to " + std::to_string(op.peer) + " without holding it");
              buffer.insert(buffer.end(), e - b, 0);
              continue;
            }
            buffer.insert(buffer.end(), it->second.begin(), it->second.end());
          }
          sends.push_back({&op, std::move(buffer)});
          requests.emplace_back();
          MPI_Isend(sends.back().buffer.data(), static_cast<int>(sends.back().buffer.size()),
                    MPI_BYTE, op.peer, tag(op), MPI_COMM_WORLD, &requests.back());
          break;
        }
        case Op::wait: {
          MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
          requests.clear();
          for (const Pending& r : recvs) {
            std::uint64_t at = 0;
            for (const Key& k : r.op->contents) {
              const auto [b, e] = span(bytes, plan.parts, std::get<2>(k));
              const auto dest = std::get<1>(k);
              if ((dest == rank || dest == -1) && held.count(k))
                error("phase " + std::to_string(r.op->phase) + ": block [" +
                      std::to_string(std::get<0>(k)) + "," +
                      (dest == -1 ? std::string("*") : std::to_string(dest)) +
                      "] arrives a second time, from " + std::to_string(r.op->peer));
              held[k].assign(r.buffer.begin() + static_cast<std::ptrdiff_t>(at),
                             r.buffer.begin() + static_cast<std::ptrdiff_t>(at + (e - b)));
              at += e - b;
            }
          }
          recvs.clear();
          sends.clear();
          break;
        }
        case Op::sync_send:
          syncs.emplace_back();
          MPI_Isend(nullptr, 0, MPI_BYTE, op.peer, kSyncTag, MPI_COMM_WORLD, &syncs.back());
          break;
        case Op::sync_recv:
          MPI_Recv(nullptr, 0, MPI_BYTE, op.peer, kSyncTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          break;
        case Op::barrier:
          MPI_Barrier(MPI_COMM_WORLD);
          break;
      }
    }
    if (!requests.empty()) {
      error("the program ends with " + std::to_string(requests.size()) +
            " operations not waited for");
      MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
    }
    MPI_Waitall(static_cast<int>(syncs.size()), syncs.data(), MPI_STATUSES_IGNORE);
  }

  /// Every block this rank must end with, byte for byte.
  void check() {
    const int p = plan.ranks;
    for (int o = 0; o < p; ++o)
      for (std::int64_t part = 0; part < plan.parts; ++part) {
        const std::int64_t d = plan.alltoall ? rank : -1;
        const auto it = held.find(Key{o, d, part});
        const auto name = [&] {
          return "block [" + std::to_string(o) + "," +
                 (plan.alltoall ? std::to_string(rank) : std::string("*")) +
                 (plan.parts > 1 ? "," + std::to_string(part) : "") + "]";
        };
        if (it == held.end()) {
          error(name() + " never arrived");
          continue;
        }
        // Against the pattern itself, byte by byte: no second copy of what should have come.
        const auto [begin, end] = span(bytes, plan.parts, part);
        const std::vector<std::uint8_t>& got = it->second;
        std::size_t at = 0;
        while (at < got.size() && got[at] == pattern(o, d, begin + at)) ++at;
        if (at != got.size() || got.size() != end - begin)
          error(name() + " differs at byte " + std::to_string(at));
      }
  }
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty()      ? 0
         : v.size() % 2 ? v[v.size() / 2]
                        : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

/// The slowest rank's time of `call`, per repeat; `prepare` runs before each, untimed.
template <class Prepare, class Call>
std::vector<double> timed(int repeats, Prepare&& prepare, Call&& call) {
  std::vector<double> out;
  for (int i = 0; i < repeats; ++i) {
    prepare();
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    call();
    double mine = MPI_Wtime() - start, slowest = 0;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    out.push_back(slowest);
  }
  return out;
}

int usage() {
  std::fprintf(stderr,
               "usage: phasecheck-runner PROGRAMS.json [--bytes B] [--repeats R] "
               "[--only schedule|library]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 2) {
    if (rank == 0) usage();
    MPI_Finalize();
    return 2;
  }
  std::uint64_t bytes = 1024;
  int repeats = 5;
  std::string only;  // "schedule", "library" or "" (both)
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--bytes")
      bytes = std::strtoull(argv[i + 1], nullptr, 10);
    else if (flag == "--repeats")
      repeats = std::atoi(argv[i + 1]);
    else if (flag == "--only")
      only = argv[i + 1];
  }
  // Every rank reads the file and its own program; if any fails, all stop (the lowest failing
  // rank says why), rather than the others waiting for it in their first call.
  Plan plan;
  std::optional<BufferRank> buffers;  // version 3
  std::string problem;
  try {
    std::ifstream in(argv[1]);
    if (!in) throw std::runtime_error(std::string(argv[1]) + ": cannot open the file");
    const nlohmann::json j = parse_for_rank(in, rank);
    const std::string format = j.at("format").get<std::string>();
    if (format != "phasecheck.programs/2" && format != "phasecheck.programs/3")
      throw std::runtime_error(std::string(argv[1]) +
                               ": not a phasecheck.programs/2 or phasecheck.programs/3 file");
    if (j.at("ranks") != size)
      throw std::runtime_error(std::string(argv[1]) + ": the programs are for " +
                               j.at("ranks").dump() + " ranks, not " + std::to_string(size));
    if (format == "phasecheck.programs/3") {
      try {
        buffers.emplace(j, rank, bytes);
      } catch (const std::exception& e) {
        throw std::runtime_error(std::string(argv[1]) + ": " + e.what());
      }
    } else {
      plan = read_plan(j, argv[1], rank);
      if (bytes < static_cast<std::uint64_t>(plan.parts))
        throw std::runtime_error("--bytes is less than the " + std::to_string(plan.parts) +
                                 " parts of a message");
    }
    if (repeats < 1 || bytes == 0)
      throw std::runtime_error("--bytes and --repeats must be positive");
  } catch (const std::exception& e) {
    problem = e.what();
  }
  int failing = problem.empty() ? size : rank, first_failing = size;
  MPI_Allreduce(&failing, &first_failing, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first_failing < size) {
    if (rank == first_failing)
      std::fprintf(stderr, "phasecheck-runner: %s%s\n",
                   rank == 0 ? "" : ("rank " + std::to_string(rank) + ": ").c_str(),
                   problem.c_str());
    MPI_Finalize();
    return 2;
  }

  Rank me{rank, plan, bytes, {}, {}, {}};
  std::vector<double> schedule, library;
  // One execution per repeat, each checked before the next starts, outside the time.
  const auto execute = [&](auto& executor) {
    bool first = true;
    const auto prepare = [&] {
      if (!first) executor.finish_call();
      first = false;
      executor.reset();
    };
    schedule = timed(repeats, prepare, [&] { executor.run(); });
    executor.finish_call();
    executor.errors().print(rank);
    return executor.errors().total();
  };
  long long mine = 0;
  if (only != "library") mine = buffers ? execute(*buffers) : execute(me);

  // The library's own collective on the same data, in the same run: a message of B bytes
  // (version 3: its chunks, whole).
  const bool alltoall = buffers ? buffers->alltoall() : plan.alltoall;
  const std::uint64_t block = buffers ? buffers->chunks() * buffers->chunk_bytes() : bytes;
  const int p = size;
  std::vector<std::uint8_t> send(block * static_cast<std::uint64_t>(alltoall ? p : 1)),
      recv(block * static_cast<std::uint64_t>(p));
  for (int d = 0; d < (alltoall ? p : 1); ++d)
    for (std::uint64_t i = 0; i < block; ++i)
      send[static_cast<std::uint64_t>(d) * block + i] = pattern(rank, alltoall ? d : -1, i);
  const auto collective = [&] {
    if (alltoall)
      MPI_Alltoall(send.data(), static_cast<int>(block), MPI_BYTE, recv.data(),
                   static_cast<int>(block), MPI_BYTE, MPI_COMM_WORLD);
    else
      MPI_Allgather(send.data(), static_cast<int>(block), MPI_BYTE, recv.data(),
                    static_cast<int>(block), MPI_BYTE, MPI_COMM_WORLD);
  };
  if (only != "schedule")
    library = timed(
        repeats, [] {}, collective);

  long long errors = 0;
  MPI_Reduce(&mine, &errors, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    nlohmann::ordered_json out;
    out["ranks"] = p;
    out["bytes"] = bytes;
    if (buffers) out["chunk_bytes"] = buffers->chunk_bytes();
    out["repeats"] = repeats;
    out["errors"] = errors;
    if (!schedule.empty()) out["schedule_seconds"] = median(schedule);
    if (!library.empty()) out["library_seconds"] = median(library);
    std::printf("%s\n", out.dump().c_str());
    std::fflush(stdout);
  }
  MPI_Finalize();
  return 0;
}
