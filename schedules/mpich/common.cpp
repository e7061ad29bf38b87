#include <algorithm>
#include <vector>

#include "core/buffer_lowering.hpp"
#include "core/limits.hpp"
#include "schedules/mpich/mpich.hpp"

namespace phasecheck::schedules::mpich {

Algorithm program_row(
    std::string_view name, std::string_view summary, std::string_view reference,
    std::span<const ParameterSpec> parameters,
    std::function<Schedule(const ScheduleHeader&)> program,
    std::function<Claims(const ScheduleHeader&)> claims,
    std::function<bool(const ScheduleHeader&, const Topology&)> contention_free_on, bool in_place) {
  Algorithm row{
      name,
      summary,
      reference,
      parameters,
      [program](const ScheduleHeader& h, const PhaseSink& out) { table_of(program(h), out); },
      std::move(claims),
      std::move(contention_free_on),
      {},
      std::move(program)};
  row.in_place = in_place;
  return row;
}

void check_program_memory(const ScheduleHeader& header, std::uint64_t ops_per_rank,
                          std::uint64_t slots_per_rank, std::string_view name) {
  const std::uint64_t p = header.ranks();
  const auto per_rank =
      checked_add(checked_mul(ops_per_rank, sizeof(BufferOp)), checked_mul(slots_per_rank, 16));
  check_memory(checked_mul(per_rank, p), std::string(name) + " on " + std::to_string(p) +
                                             " ranks (its buffer program is built whole and run)");
}

void rotate_in(Schedule& s, Rank p, std::string label) {
  Phase rotate(std::move(label));
  for (Rank rank = 0; rank < p; ++rank) {
    rotate.add(BufferOp{rank, rank, input(rank), output(0), p - rank});
    if (rank != 0) rotate.add(BufferOp{rank, rank, input(0), output(p - rank), rank});
  }
  s.phases.push_back(std::move(rotate));
}

std::string rotate_out_label(const std::string& label) {
  return label + ": rotate recvbuf up by rank + 1 into tmp_buf";
}

std::string invert_label(const std::string& label) {
  return label + ": invert, recvbuf[p - 1 - i] = tmp_buf[i]";
}

void rotate_out(Schedule& s, Rank p, std::string label) {
  Phase rotate(rotate_out_label(label));
  Phase reverse(invert_label(label));
  for (Rank rank = 0; rank < p; ++rank) {
    if (rank + 1 < p) rotate.add(BufferOp{rank, rank, output(rank + 1), scratch(0), p - rank - 1});
    rotate.add(BufferOp{rank, rank, output(0), scratch(p - rank - 1), rank + 1});
    for (Rank i = 0; i < p; ++i) reverse.add(BufferOp{rank, rank, scratch(i), output(p - 1 - i)});
  }
  s.phases.push_back(std::move(rotate));
  s.phases.push_back(std::move(reverse));
}

void add_bruck_exchange(Phase& phase, Rank p, std::uint64_t k, std::uint64_t delta,
                        std::uint64_t digits) {
  std::vector<Block> blocks;
  for (Rank r = 0; r < p; ++r)
    for (std::uint64_t j = 1; j <= digits; ++j) {
      blocks.clear();
      for (std::uint64_t first = delta * j; first < p; first += k * delta)
        for (std::uint64_t offset = first; offset < std::min<std::uint64_t>(first + delta, p);
             ++offset) {
          const auto origin = static_cast<Rank>((r + p - offset % delta) % p);
          blocks.push_back(Block{origin, static_cast<Rank>((origin + offset) % p)});
        }
      phase.add(r, static_cast<Rank>((r + delta * j) % p), blocks);
    }
}

Claims sendrecv_claims(std::size_t phases, std::string source, std::uint64_t c2,
                       std::string c2_source) {
  Claims c{.phases = PhaseClaim::exactly(phases, std::move(source))};
  c.c2 = PhaseClaim::exactly(c2, std::move(c2_source));
  c.max_requests = Claims::RequestLimit{2, "one MPIC_Sendrecv per step"};
  return c;
}

unsigned base_k_digits(Rank p, std::uint64_t k) {
  unsigned digits = 0;
  for (std::uint64_t max = p - 1; max; max /= k) ++digits;
  return digits;
}

}  // namespace phasecheck::schedules::mpich
