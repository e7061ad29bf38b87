#pragma once
// Glue: run a rapidcheck property inside a doctest test case. The Debian rapidcheck ships glue
// for gtest, Catch and Boost.Test but not doctest; this is the same 20 lines.

#include <doctest/doctest.h>
#include <rapidcheck.h>

#include <sstream>
#include <string>

namespace phasecheck::properties {

/// Checks `property` with rapidcheck (parameters from RC_PARAMS); a failure fails the doctest
/// test case with rapidcheck's message: the shrunk counterexample and how to reproduce it.
template <class Property>
void check(const std::string& description, Property&& property) {
  rc::detail::TestMetadata metadata;
  metadata.id = description;
  metadata.description = description;
  const auto result = rc::detail::checkTestable(std::forward<Property>(property), metadata);
  std::ostringstream message;
  rc::detail::printResultMessage(result, message);
  INFO(description << "\n" << message.str());
  CHECK(result.template is<rc::detail::SuccessResult>());
}

}  // namespace phasecheck::properties
