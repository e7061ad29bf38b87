/* MPI_Alltoallv under the interposer against the library's own (tests/deploy/deploy-mpi.sh,
 * cases v_*): TRIALS random traffic matrices from SEED, the same on every rank (so counts
 * agree), with zero and non-zero pairs, all-zero rows and columns, gaps between the areas and
 * displacements in a permuted (non-monotonic) order, in turn with predefined types, a strided
 * send type against a contiguous receive type of one signature, a struct with a hole against a
 * packed struct of its signature, counts that differ on both sides for one signature (2n ints
 * as n pairs), and MPI_IN_PLACE (with a predefined and a strided type; the matrix is then
 * symmetric, as a correct in-place call needs). Every call is made
 * twice from the same buffers: MPI_Alltoallv (the interposer, under LD_PRELOAD) and
 * PMPI_Alltoallv; the receive buffers, holes and gaps included, must agree byte for byte and the
 * send buffer must be left as it was. Rank 0 prints "alltoallv: N calls on P ranks, F failures".
 * With -DROUTINE=phasecheck_..._alltoallv it calls that routine (deploy --emit-c) instead.
 *   alltoallv SEED TRIALS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef ROUTINE
int ROUTINE(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
            void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
            MPI_Comm comm);
#define SCHEDULED ROUTINE
#else
#define SCHEDULED MPI_Alltoallv
#endif

static unsigned long long state;
static unsigned next(void) { /* xorshift64*: the same sequence on every rank */
  state ^= state >> 12;
  state ^= state << 25;
  state ^= state >> 27;
  return (unsigned)((state * 2685821657736338717ULL) >> 33);
}

enum { KINDS = 6 };
static const char *const kind_names[KINDS] = {
    "MPI_INT",
    "vector(2, 1, 3, MPI_INT) as contiguous(2, MPI_INT)",
    "struct {char; hole; double} as packed struct {char; double}",
    "2n MPI_INT as n contiguous(2, MPI_INT)",
    "MPI_IN_PLACE, MPI_INT",
    "MPI_IN_PLACE, vector(2, 1, 3, MPI_INT)"};

typedef struct {
  MPI_Datatype send, recv;
  int send_units, recv_units; /* elements per unit of the matrix */
  int in_place;
} Types;

static MPI_Datatype strided, pair, holed, packed;

static Types types_of(int kind) {
  Types t = {MPI_INT, MPI_INT, 1, 1, 0};
  switch (kind) {
    case 1:
      t.send = strided;
      t.recv = pair;
      break;
    case 2:
      t.send = holed;
      t.recv = packed;
      break;
    case 3:
      t.send_units = 2;
      t.recv = pair;
      break;
    case 4:
      t.in_place = 1;
      break;
    case 5:
      t.in_place = 1;
      t.send = t.recv = strided;
      break;
    default:
      break;
  }
  return t;
}

/* Displacements (in extents) for `counts[i] * units` elements per area, areas in a random
 * order with random gaps; returns the extents the buffer needs. */
static int layout(int p, const int *counts, int units, int *displs) {
  int order[64], i, at = 0;
  for (i = 0; i < p; ++i) order[i] = i;
  for (i = p - 1; i > 0; --i) { /* Fisher-Yates */
    const int j = (int)(next() % (unsigned)(i + 1)), k = order[i];
    order[i] = order[j];
    order[j] = k;
  }
  for (i = 0; i < p; ++i) {
    at += (int)(next() % 3); /* a gap of 0 to 2 elements */
    displs[order[i]] = at;
    at += counts[order[i]] * units;
  }
  return at + 1;
}

static int calls = 0, failures = 0;

static void trial(MPI_Comm comm, int kind, int trial_number) {
  int p, rank, s, d, err1, err2;
  int matrix[64 * 64], sendcounts[64], recvcounts[64], sdispls[64], rdispls[64];
  int send_elements = 0, recv_elements = 0;
  const Types t = types_of(kind);
  MPI_Aint lb, send_extent, recv_extent;
  size_t send_bytes, recv_bytes, i;
  unsigned char *send, *send_copy, *a, *b;
  const unsigned zero_row = next() % 8, zero_column = next() % 8, dense = next() % 4;
  MPI_Comm_size(comm, &p);
  MPI_Comm_rank(comm, &rank);
  /* The matrix: about half the pairs zero (none when `dense` is 0), 0 to 9 units otherwise;
   * a row (a rank sending nothing) and a column (a rank receiving nothing) now and then. */
  for (s = 0; s < p; ++s)
    for (d = 0; d < p; ++d) {
      const unsigned r = next();
      matrix[s * p + d] = (dense == 0 || r % 2) ? (int)(1 + (r >> 4) % 9) : 0;
      if ((unsigned)s == zero_row || (unsigned)d == zero_column) matrix[s * p + d] = 0;
    }
  /* In place, rank r sends recvcounts[d] (counts[d][r]) to d, who receives counts[r][d]: a
   * correct program has a symmetric matrix. */
  for (s = 0; s < p && t.in_place; ++s)
    for (d = 0; d < s; ++d) matrix[s * p + d] = matrix[d * p + s];
  for (d = 0; d < p; ++d) {
    sendcounts[d] = matrix[rank * p + d] * t.send_units;
    recvcounts[d] = matrix[d * p + rank] * t.recv_units;
  }
  /* Every rank draws every rank's layout, in rank order, so the sequence stays shared. */
  for (s = 0; s < p; ++s) {
    int counts[64], sd[64], rd[64], se, re;
    for (d = 0; d < p; ++d) counts[d] = matrix[s * p + d];
    se = layout(p, counts, t.send_units, sd);
    for (d = 0; d < p; ++d) counts[d] = matrix[d * p + s];
    re = layout(p, counts, t.recv_units, rd);
    if (s == rank) {
      memcpy(sdispls, sd, sizeof sd);
      memcpy(rdispls, rd, sizeof rd);
      send_elements = se;
      recv_elements = re;
    }
  }
  MPI_Type_get_extent(t.send, &lb, &send_extent);
  MPI_Type_get_extent(t.recv, &lb, &recv_extent);
  send_bytes = (size_t)send_extent * send_elements + 16;
  recv_bytes = (size_t)recv_extent * recv_elements + 16;
  send = malloc(send_bytes);
  send_copy = malloc(send_bytes);
  a = malloc(recv_bytes);
  b = malloc(recv_bytes);
  for (i = 0; i < send_bytes; ++i)
    send[i] = (unsigned char)(rank * 131 + trial_number * 7 + i * 13);
  for (i = 0; i < recv_bytes; ++i) a[i] = (unsigned char)(rank * 17 + trial_number * 3 + i * 5);
  memcpy(send_copy, send, send_bytes);
  memcpy(b, a, recv_bytes);
  err1 = SCHEDULED(t.in_place ? MPI_IN_PLACE : send, sendcounts, sdispls, t.send, a, recvcounts,
                   rdispls, t.recv, comm);
  err2 = PMPI_Alltoallv(t.in_place ? MPI_IN_PLACE : send, sendcounts, sdispls, t.send, b,
                        recvcounts, rdispls, t.recv, comm);
  ++calls;
  if (err1 != err2 || memcmp(a, b, recv_bytes) != 0 || memcmp(send, send_copy, send_bytes) != 0) {
    i = 0;
    while (i < recv_bytes && a[i] == b[i]) ++i;
    fprintf(stderr,
            "rank %d: trial %d (%s) on %d ranks: errors %d/%d, receive buffer differs at byte "
            "%zu of %zu%s\n",
            rank, trial_number, kind_names[kind], p, err1, err2, i, recv_bytes,
            memcmp(send, send_copy, send_bytes) ? ", send buffer modified" : "");
    ++failures;
  }
  free(send);
  free(send_copy);
  free(a);
  free(b);
}

int main(int argc, char **argv) {
  int rank, p, n, trials, total, all_failures, blocks[2] = {1, 1};
  MPI_Aint holed_at[2] = {0, 8}, packed_at[2] = {0, 1};
  MPI_Datatype members[2] = {MPI_CHAR, MPI_DOUBLE}, raw;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  if (argc != 3 || p > 64) {
    if (rank == 0) fprintf(stderr, "usage: alltoallv SEED TRIALS (at most 64 ranks)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  state = strtoull(argv[1], NULL, 10) * 0x9E3779B97F4A7C15ULL + 1;
  trials = atoi(argv[2]);
  MPI_Type_vector(2, 1, 3, MPI_INT, &strided);
  MPI_Type_commit(&strided);
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  MPI_Type_create_struct(2, blocks, holed_at, members, &holed); /* char, 7-byte hole, double */
  MPI_Type_commit(&holed);
  MPI_Type_create_struct(2, blocks, packed_at, members, &raw); /* char, double: 9 bytes */
  MPI_Type_create_resized(raw, 0, 9, &packed);
  MPI_Type_commit(&packed);
  MPI_Type_free(&raw);
  for (n = 0; n < trials; ++n) trial(MPI_COMM_WORLD, n % KINDS, n);
  MPI_Type_free(&strided);
  MPI_Type_free(&pair);
  MPI_Type_free(&holed);
  MPI_Type_free(&packed);
  PMPI_Reduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  PMPI_Reduce(&calls, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("alltoallv: %d calls on %d ranks, %d failures\n", total, p, all_failures);
  MPI_Finalize();
  return rank == 0 && all_failures ? 1 : 0;
}
