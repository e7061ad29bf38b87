#pragma once
/// MPICH's alltoall and allgather (src/mpi/coll/alltoall/, src/mpi/coll/allgather/ of
/// pmodels/mpich main at commit 6a79bf6575c3b5b41cabbd3d59340634d6f9412d, August 2026), one file
/// per algorithm, each a registry row. Every row is program-first: its buffer program is what
/// MPICH does with sendbuf, recvbuf and its temporary buffers, and its phase table is the one the
/// program's sends form (table_of), so the two never disagree. A local copy MPICH makes between
/// two communication steps is a phase of its own (an empty phase of the table).

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "core/buffers.hpp"
#include "schedules/ports.hpp"
#include "schedules/registry.hpp"

namespace phasecheck::schedules::mpich {

inline Slot input(std::uint64_t i) { return {Buffer::input, static_cast<std::uint32_t>(i)}; }
inline Slot output(std::uint64_t i) { return {Buffer::output, static_cast<std::uint32_t>(i)}; }
inline Slot scratch(std::uint64_t i) { return {Buffer::scratch, static_cast<std::uint32_t>(i)}; }

/// A registry row whose table is table_of(program(header)). `contention_free_on` as in
/// Algorithm; `in_place` for an algorithm run with MPI_IN_PLACE (format 4).
Algorithm program_row(
    std::string_view name, std::string_view summary, std::string_view reference,
    std::span<const ParameterSpec> parameters,
    std::function<Schedule(const ScheduleHeader&)> program,
    std::function<Claims(const ScheduleHeader&)> claims,
    std::function<bool(const ScheduleHeader&, const Topology&)> contention_free_on,
    bool in_place = false);

/// Refuses before a program of about `ops_per_rank` ops per rank (and its run, 16 bytes per
/// output and scratch slot) passes the memory limit; `name` names the algorithm.
void check_program_memory(const ScheduleHeader& header, std::uint64_t ops_per_rank,
                          std::uint64_t slots_per_rank, std::string_view name);


/// The Bruck alltoalls' local rotations (alltoall_intra_brucks.c and alltoall_intra_k_brucks.c do
/// the same): rotate_in appends "rotate sendbuf up by rank into recvbuf" (two copies);
/// rotate_out appends "rotate recvbuf up by rank + 1 into tmp_buf" (two copies, tmp_buf =
/// scratch[0..p)) and "recvbuf[p - 1 - i] = tmp_buf[i]" (p copies).
void rotate_in(Schedule& s, Rank p, std::string label);
void rotate_out(Schedule& s, Rank p, std::string label);
/// The phase labels rotate_out gives for `label`: the rotation's and the inversion's.
std::string rotate_out_label(const std::string& label);
std::string invert_label(const std::string& label);

/// The table of a Bruck alltoall exchange, streamed rather than derived from the program (at p =
/// 512 running the program costs about 1 s): after the rotation into recvbuf, rank r's slot
/// `offset` holds block [r - (offset mod delta), r - (offset mod delta) + offset] (the lower digits
/// have moved it already), and digit j of weight delta sends the offsets with that digit, in
/// increasing order, to r + delta j, for j = 1 .. digits. The tests check it equals table_of of the
/// program.
void add_bruck_exchange(Phase& phase, Rank p, std::uint64_t k, std::uint64_t delta,
                        std::uint64_t digits);

/// The claims of p - 1 or log2 p MPIC_Sendrecv steps after one local copy: exactly `phases`
/// phases, C2 = `c2`, two requests per rank and phase.
Claims sendrecv_claims(std::size_t phases, std::string source, std::uint64_t c2,
                       std::string c2_source);

/// ceil(log_k p): the base-k digits of p - 1, MPICH's `nphases` loop (0 for p = 1).
unsigned base_k_digits(Rank p, std::uint64_t k);

Algorithm brucks();
Algorithm k_brucks();
Algorithm pairwise();
Algorithm scattered();
Algorithm pairwise_sendrecv_replace();
Algorithm recursive_doubling();
Algorithm ring();
Algorithm recexch();
Algorithm circulant();

}  // namespace phasecheck::schedules::mpich
