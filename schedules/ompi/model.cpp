// The registry row shared by the Open MPI models (ompi.hpp): program first, table from it.

#include "core/limits.hpp"
#include "schedules/ompi/ompi.hpp"

namespace phasecheck::schedules::ompi {

void check_program_memory(std::string_view name, Rank p, std::uint64_t ops) {
  // Each op, and in the run of it 16 bytes per output and scratch slot (3 p of them at most).
  check_memory(
      checked_add(checked_mul(ops, sizeof(BufferOp)), checked_mul(3 * std::uint64_t{p}, 16)),
      std::string(name) + " on " + std::to_string(p) +
          " ranks (its buffer program is built whole and run)");
}

Rank checked_ranks(const ScheduleHeader& header, std::span<const ParameterSpec> parameters,
                   std::string_view name) {
  check_parameters(header.parameters, parameters, header.ranks(), name);
  return header.ranks();
}

Phase own_block_copy(Rank p) {
  Phase copy("local copy sbuf -> rbuf[rank]");
  for (Rank rank = 0; rank < p; ++rank) copy.add(BufferOp{rank, rank, sbuf(0), rbuf(rank), 1});
  return copy;
}

Schedule empty_program(const ScheduleHeader& header, BufferLayout layout) {
  Schedule s{header, {}};
  s.header.buffers = layout;
  return s;
}

Algorithm row(const Model& model) {
  const auto program = model.program;
  const auto claims = model.claims;
  const auto contention_free_on = model.contention_free_on;
  return {model.name,
          model.summary,
          model.reference,
          model.parameters,
          [program](const ScheduleHeader& h, const PhaseSink& out) { table_of(program(h), out); },
          [claims](const ScheduleHeader& h) { return claims(h); },
          [contention_free_on](const ScheduleHeader& h, const Topology& t) {
            return contention_free_on(h, t);
          },
          {},
          [program](const ScheduleHeader& h) { return program(h); },
          model.in_place};
}

bool has_ports(const Topology& model, std::uint64_t ports) {
  const auto* f = std::get_if<FullyConnected>(&model);
  return f != nullptr && f->ports >= ports;
}

bool one_port(const ScheduleHeader&, const Topology& model) { return has_ports(model, 1); }

}  // namespace phasecheck::schedules::ompi
