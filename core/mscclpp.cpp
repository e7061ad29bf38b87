#include "core/mscclpp.hpp"

#include <array>
#include <utility>

namespace phasecheck::mscclpp {
namespace {

constexpr std::array<std::pair<OpKind, std::string_view>, 30> kOpNames{{
    {OpKind::nop, "nop"},
    {OpKind::barrier, "barrier"},
    {OpKind::put, "put"},
    {OpKind::put_with_signal, "pws"},
    {OpKind::put_with_signal_and_flush, "pwsf"},
    {OpKind::get, "get"},
    {OpKind::copy, "copy"},
    {OpKind::signal, "signal"},
    {OpKind::wait, "wait"},
    {OpKind::relaxed_signal, "rlxsignal"},
    {OpKind::relaxed_wait, "rlxwait"},
    {OpKind::flush, "flush"},
    {OpKind::put_packets, "ppkt"},
    {OpKind::read_put_packets, "rppkt"},
    {OpKind::copy_packets, "cpkt"},
    {OpKind::unpack_packets, "upkt"},
    {OpKind::pipeline, "pipeline"},
    {OpKind::sem_acquire, "sem_acquire"},
    {OpKind::sem_release, "sem_release"},
    {OpKind::reduce, "re"},
    {OpKind::reduce_send, "res"},
    {OpKind::read_reduce, "rre"},
    {OpKind::read_reduce_send, "rres"},
    {OpKind::reduce_send_packets, "respkt"},
    {OpKind::reduce_packets, "repkt"},
    {OpKind::reduce_copy_packets, "recpkt"},
    {OpKind::reduce_copy_send_packets, "recspkt"},
    {OpKind::multi_load_reduce_store, "glres"},
    {OpKind::multi_store, "gstore"},
    {OpKind::multi_store_packets, "gstorepkt"},
}};

}  // namespace

std::string_view to_string(OpKind k) {
  for (const auto& [kind, name] : kOpNames)
    if (kind == k) return name;
  return "?";
}

std::optional<OpKind> parse_op_kind(std::string_view name) {
  for (const auto& [kind, n] : kOpNames)
    if (n == name) return kind;
  return std::nullopt;
}

bool reduces(OpKind k) {
  switch (k) {
    case OpKind::reduce:
    case OpKind::reduce_send:
    case OpKind::read_reduce:
    case OpKind::read_reduce_send:
    case OpKind::reduce_send_packets:
    case OpKind::reduce_packets:
    case OpKind::reduce_copy_packets:
    case OpKind::reduce_copy_send_packets:
    case OpKind::multi_load_reduce_store:
      return true;
    case OpKind::nop:
    case OpKind::barrier:
    case OpKind::put:
    case OpKind::put_with_signal:
    case OpKind::put_with_signal_and_flush:
    case OpKind::get:
    case OpKind::copy:
    case OpKind::signal:
    case OpKind::wait:
    case OpKind::relaxed_signal:
    case OpKind::relaxed_wait:
    case OpKind::flush:
    case OpKind::put_packets:
    case OpKind::read_put_packets:
    case OpKind::copy_packets:
    case OpKind::unpack_packets:
    case OpKind::pipeline:
    case OpKind::sem_acquire:
    case OpKind::sem_release:
    case OpKind::multi_store:
    case OpKind::multi_store_packets:
      return false;
  }
  return false;
}

bool uses_switch(OpKind k) {
  return k == OpKind::multi_load_reduce_store || k == OpKind::multi_store ||
         k == OpKind::multi_store_packets;
}

bool moves_packets(OpKind k) {
  return k == OpKind::put_packets || k == OpKind::read_put_packets || k == OpKind::copy_packets ||
         k == OpKind::unpack_packets;
}

std::string_view to_string(ChannelType t) {
  switch (t) {
    case ChannelType::memory:
      return "memory";
    case ChannelType::port:
      return "port";
    case ChannelType::switch_channel:
      return "switch";
    case ChannelType::none:
      return "none";
  }
  return "?";
}

std::optional<ChannelType> parse_channel_type(std::string_view name) {
  for (ChannelType t :
       {ChannelType::memory, ChannelType::port, ChannelType::switch_channel, ChannelType::none})
    if (to_string(t) == name) return t;
  return std::nullopt;
}

}  // namespace phasecheck::mscclpp
