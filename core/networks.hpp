#pragma once
/// Generators for low-diameter networks, as Graph topologies.

#include "core/topology.hpp"

namespace phasecheck {

/// Slim Fly by the MMS construction (Besta & Hoefler, SC14, Section III): for a prime q = 4w + d,
/// d in {-1, 1}, 2q^2 routers (0, x, y) and (1, m, c) over F_q; (0, x, y) ~ (0, x, y') when
/// y - y' is in X, (1, m, c) ~ (1, m, c') when c - c' is in X', and (0, x, y) ~ (1, m, c) when
/// y = m x + c. X and X' are the generator sets built from a primitive element of F_q. Router
/// degree (3q - d)/2, diameter 2. `concentration` hosts per router; 0 picks ceil(degree / 2), the
/// paper's balanced choice. Throws InputError unless q is a prime with q mod 4 in {1, 3}, q >= 5.
Graph slim_fly(unsigned q, unsigned concentration = 0);

/// The canonical Dragonfly (Kim et al., ISCA 2008): g = a h + 1 groups of a routers, all-to-all
/// inside a group; each router has h global links and p hosts; group i's global link k (router
/// k / h) goes to group k if k < i, else k + 1, so every two groups share exactly one link.
Graph dragonfly(unsigned a, unsigned h, unsigned p);

}  // namespace phasecheck
