#pragma once
/// The models of Open MPI's coll/base alltoall and allgather (ompi/mca/coll/base/
/// coll_base_alltoall.c, coll_base_allgather.c), one file each. Every model is written program
/// first: its buffer program (format 3) is what the Open MPI function does with sbuf, rbuf and its
/// temporary buffer, and its phase table is the one the program's sends form (table_of), so the two
/// never disagree. The pieces they share live here.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "core/buffer_lowering.hpp"
#include "core/error.hpp"
#include "schedules/registry.hpp"

namespace phasecheck::schedules::ompi {

/// Open MPI's buffer names: sbuf (input), rbuf (output), the temporary buffer (scratch).
inline Slot sbuf(std::uint64_t i) { return {Buffer::input, static_cast<std::uint32_t>(i)}; }
inline Slot rbuf(std::uint64_t i) { return {Buffer::output, static_cast<std::uint32_t>(i)}; }
inline Slot tmpbuf(std::uint64_t i) { return {Buffer::scratch, static_cast<std::uint32_t>(i)}; }

/// (rank + offset) mod p for an offset in (-p, p), as Open MPI's (rank - distance + size) % size.
inline Rank shifted(Rank rank, std::int64_t offset, Rank p) {
  return static_cast<Rank>((static_cast<std::int64_t>(rank) + offset + p) % p);
}

/// p, after checking the header's parameters against `parameters` (InputError naming them).
Rank checked_ranks(const ScheduleHeader& header, std::span<const ParameterSpec> parameters,
                   std::string_view name);

/// The allgather's first phase: every rank copies sbuf into rbuf[rank] (ompi_datatype_sndrcv).
Phase own_block_copy(Rank p);

/// InputError before a program of about `ops` ops is built whole, when it would pass the memory
/// limit (core/limits.hpp): the program and the table run from it.
void check_program_memory(std::string_view name, Rank p, std::uint64_t ops);

/// A schedule of `header` with the layout `layout` and no phases yet.
Schedule empty_program(const ScheduleHeader& header, BufferLayout layout);

/// What a model's file declares; row() turns it into a registry row.
struct Model {
  std::string_view name;
  std::string_view summary;
  std::string_view reference;  ///< Open MPI file, function and version followed
  std::span<const ParameterSpec> parameters;
  /// The program; checks the parameters and the preconditions (InputError).
  Schedule (*program)(const ScheduleHeader&);
  Claims (*claims)(const ScheduleHeader&);
  /// Whether every phase is contention-free on `model` for this header.
  bool (*contention_free_on)(const ScheduleHeader&, const Topology& model);
  bool in_place = false;
};

/// The registry row of a program-first model: its table is table_of(its program).
Algorithm row(const Model& model);

/// Every phase moves at most one message out of and into each rank: one port suffices.
bool one_port(const ScheduleHeader&, const Topology& model);
/// Whether `model` is fully connected with at least `ports` ports per rank.
bool has_ports(const Topology& model, std::uint64_t ports);

Algorithm pairwise();
Algorithm linear_sync();
Algorithm inplace();
Algorithm two_procs();
Algorithm recursive_doubling();
Algorithm ring();
Algorithm neighbor_exchange();
Algorithm sparbit();
Algorithm bruck_k();
Algorithm direct();

}  // namespace phasecheck::schedules::ompi
