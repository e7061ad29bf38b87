#pragma once
/// "Did you mean": the known name closest to a misspelled one, for every message that refuses an
/// unknown algorithm, command, option, topology kind or format.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace phasecheck {

/// Edits (insert, delete, substitute, swap two neighbours) from `a` to `b`, ignoring case: the
/// optimal string alignment distance.
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The known name closest to `word`, if it is close enough to be the one meant: at most 2 edits,
/// and fewer than half of the word's letters; or `word` is a prefix of exactly one name. Ties go
/// to the first in `known`.
std::optional<std::string> closest(std::string_view word, const std::vector<std::string>& known);

/// "unknown algorithm 'pairwse-xor'; did you mean 'pairwise-xor'? (known: factor, shift, ...)":
/// `what` names the kind of thing, `known` lists them in the order to show.
std::string unknown_name(std::string_view what, std::string_view word,
                         const std::vector<std::string>& known);

}  // namespace phasecheck
