#pragma once
/// What the command files share to declare their options with CLI11: value checks with "did you
/// mean", byte counts, old spellings kept for a release, and --report's formats.
///
/// Every command file includes CLI11, so that it reads like its help text. CLI11 costs ~9 s per
/// translation unit (docs/toolchain); the phasecheck_command_line target precompiles it once
/// (cli/CMakeLists.txt), so a command file pays about what any other file does.

#include <CLI/CLI.hpp>
#include <span>
#include <string>
#include <vector>

#include "report/format.hpp"

namespace phasecheck::cli {

/// CLI::IsMember with "did you mean": "--mode: unknown value 'forwardin'; did you mean
/// 'forwarding'? (known: direct, forwarding)". Its help shows "{direct,forwarding}".
CLI::Validator one_of(std::vector<std::string> names);

/// A non-negative integer, checked as text: CLI11 2.1 reads unsigned options with strtoull, so
/// "-1" would become 2^64 - 1, "0x10" 16 and an overflow the maximum, silently.
const CLI::Validator& natural();

/// Makes `option` a byte count as every size option takes it: 4096, 4KiB, 1MiB, 1m (binary
/// units, CLI11's AsSizeValue); a sign or a fraction is refused (CLI11 alone reads "-1" as
/// 2^64 - 1).
CLI::Option* bytes_option(CLI::Option* option);

/// The group of old spellings, which help does not show (docs/cli.md, "Renamed options").
/// (CLI11's own hidden group, "", also drops the option's name from its error messages.)
inline constexpr const char* renamed_group = "Renamed options";

/// Makes `option` the old spelling of an option, kept out of help for one release: using it
/// prints "phasecheck: note: OLD is now `now`; the old name goes away in the next release". Its
/// description, which help never shows, holds `now`.
CLI::Option* old_spelling(CLI::Option* option, std::string now);

/// --report's transform: the name of one of `formats` becomes its ReportFormat; any other is
/// refused as one_of refuses ("--report: unknown value 'csv' (known: text, json, junit)").
CLI::Validator report_format(std::span<const reports::ReportFormat> formats);

}  // namespace phasecheck::cli
