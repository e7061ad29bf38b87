/* An unmodified MPI program for `phasecheck deploy` (tests/deploy/deploy-mpi.sh): MPI_Alltoall
 * and MPI_Allgather with counts from 0 to 1000, predefined and derived datatypes (contiguous,
 * strided, with holes, different send and receive types of one signature, a mismatch),
 * MPI_IN_PLACE, MPI_COMM_WORLD, a duplicate and split communicators used in turn. Every call is
 * made twice from the same buffers: through MPI_ (the interposer, under LD_PRELOAD) and through
 * PMPI_ (the library's own); the receive buffers must agree byte for byte, and the send buffer
 * must be left as it was. Rank 0 prints "collectives: N calls on P ranks, F failures". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int calls = 0, failures = 0;

static void fill(unsigned char *buf, size_t bytes, int rank, int salt) {
  size_t i;
  for (i = 0; i < bytes; ++i) buf[i] = (unsigned char)(rank * 131 + salt * 17 + i * 7 + (i >> 8));
}

typedef struct {
  const char *name;
  int allgather, in_place;
  int sendcount, recvcount;
  MPI_Datatype sendtype, recvtype;
} Case;

static void run(MPI_Comm comm, const char *comm_name, const Case *c) {
  int p, rank, bad = 0, err1, err2;
  MPI_Aint lb, send_extent, recv_extent;
  size_t send_bytes, recv_bytes;
  unsigned char *send, *send_copy, *recv_a, *recv_b;
  MPI_Comm_size(comm, &p);
  MPI_Comm_rank(comm, &rank);
  MPI_Type_get_extent(c->sendtype, &lb, &send_extent);
  MPI_Type_get_extent(c->recvtype, &lb, &recv_extent);
  send_bytes = (size_t)send_extent * c->sendcount * (c->allgather ? 1 : p) + 16;
  recv_bytes = (size_t)recv_extent * c->recvcount * p + 16;
  send = malloc(send_bytes);
  send_copy = malloc(send_bytes);
  recv_a = malloc(recv_bytes);
  recv_b = malloc(recv_bytes);
  fill(send, send_bytes, rank, 1);
  memcpy(send_copy, send, send_bytes);
  fill(recv_a, recv_bytes, rank, 2); /* in place: the data; else what holes keep */
  memcpy(recv_b, recv_a, recv_bytes);
  if (c->allgather) {
    err1 = MPI_Allgather(c->in_place ? MPI_IN_PLACE : send, c->sendcount, c->sendtype, recv_a,
                         c->recvcount, c->recvtype, comm);
    err2 = PMPI_Allgather(c->in_place ? MPI_IN_PLACE : send, c->sendcount, c->sendtype, recv_b,
                          c->recvcount, c->recvtype, comm);
  } else {
    err1 = MPI_Alltoall(c->in_place ? MPI_IN_PLACE : send, c->sendcount, c->sendtype, recv_a,
                        c->recvcount, c->recvtype, comm);
    err2 = PMPI_Alltoall(c->in_place ? MPI_IN_PLACE : send, c->sendcount, c->sendtype, recv_b,
                         c->recvcount, c->recvtype, comm);
  }
  ++calls;
  if (err1 != err2) {
    fprintf(stderr, "rank %d: %s on %s: error %d, the library's %d\n", rank, c->name, comm_name,
            err1, err2);
    bad = 1;
  } else if (memcmp(recv_a, recv_b, recv_bytes) != 0) {
    size_t i = 0;
    while (recv_a[i] == recv_b[i]) ++i;
    fprintf(stderr, "rank %d: %s on %s (%d ranks): byte %zu of the receive buffer differs from "
            "the library's\n", rank, c->name, comm_name, p, i);
    bad = 1;
  } else if (memcmp(send, send_copy, send_bytes) != 0) {
    fprintf(stderr, "rank %d: %s on %s: the send buffer was modified\n", rank, c->name, comm_name);
    bad = 1;
  }
  failures += bad;
  free(send);
  free(send_copy);
  free(recv_a);
  free(recv_b);
}

static void run_all(MPI_Comm comm, const char *comm_name, const Case *cases, int n) {
  int i;
  for (i = 0; i < n; ++i) run(comm, comm_name, &cases[i]);
}

int main(int argc, char **argv) {
  MPI_Datatype int3, strided, holes, int2, pair_struct;
  MPI_Comm dup, halves, reversed;
  int rank, p, total, all_failures;
  struct {
    char c;
    double d;
  } sample;
  int block[2] = {1, 1};
  MPI_Aint displacement[2];
  MPI_Datatype member[2] = {MPI_CHAR, MPI_DOUBLE};

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);

  MPI_Type_contiguous(3, MPI_INT, &int3);  /* derived, contiguous */
  MPI_Type_commit(&int3);
  MPI_Type_vector(2, 1, 2, MPI_INT, &strided);  /* every other int: not contiguous */
  MPI_Type_commit(&strided);
  MPI_Get_address(&sample.c, &displacement[0]);
  MPI_Get_address(&sample.d, &displacement[1]);
  displacement[1] -= displacement[0];
  displacement[0] = 0;
  MPI_Type_create_struct(2, block, displacement, member, &holes); /* char, 7 bytes hole, double */
  MPI_Type_commit(&holes);
  MPI_Type_contiguous(2, MPI_INT, &int2);
  MPI_Type_commit(&int2);
  pair_struct = MPI_2INT;
  {
    const Case cases[] = {
        {"alltoall 0 ints", 0, 0, 0, 0, MPI_INT, MPI_INT},
        {"alltoall 1 int", 0, 0, 1, 1, MPI_INT, MPI_INT},
        {"alltoall 3 ints", 0, 0, 3, 3, MPI_INT, MPI_INT},
        {"alltoall 1000 ints", 0, 0, 1000, 1000, MPI_INT, MPI_INT},
        {"alltoall 5 chars", 0, 0, 5, 5, MPI_CHAR, MPI_CHAR},
        {"alltoall 7 doubles", 0, 0, 7, 7, MPI_DOUBLE, MPI_DOUBLE},
        {"alltoall 2 int3 as 6 ints", 0, 0, 2, 6, int3, MPI_INT},
        {"alltoall 6 ints as 2 int3", 0, 0, 6, 2, MPI_INT, int3},
        {"alltoall 3 MPI_2INT as 3 contiguous(2, int)", 0, 0, 3, 3, pair_struct, int2},
        {"alltoall 3 strided", 0, 0, 3, 3, strided, strided},
        {"alltoall 6 ints into 3 strided", 0, 0, 6, 3, MPI_INT, strided},
        {"alltoall 2 char+double with a hole", 0, 0, 2, 2, holes, holes},
        {"alltoall 4 floats as 4 ints (signatures differ)", 0, 0, 4, 4, MPI_FLOAT, MPI_INT},
        {"alltoall in place 3 ints", 0, 1, 0, 3, MPI_INT, MPI_INT},
        {"alltoall in place 2 strided", 0, 1, 0, 2, MPI_INT, strided},
        {"allgather 0 ints", 1, 0, 0, 0, MPI_INT, MPI_INT},
        {"allgather 1 int", 1, 0, 1, 1, MPI_INT, MPI_INT},
        {"allgather 1000 ints", 1, 0, 1000, 1000, MPI_INT, MPI_INT},
        {"allgather 5 chars", 1, 0, 5, 5, MPI_CHAR, MPI_CHAR},
        {"allgather 2 int3 as 6 ints", 1, 0, 2, 6, int3, MPI_INT},
        {"allgather 3 strided", 1, 0, 3, 3, strided, strided},
        {"allgather 2 char+double with a hole", 1, 0, 2, 2, holes, holes},
        {"allgather in place 3 ints", 1, 1, 0, 3, MPI_INT, MPI_INT},
        {"allgather in place 2 strided", 1, 1, 0, 2, MPI_INT, strided},
    };
    const int n = (int)(sizeof cases / sizeof cases[0]);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &halves);
    /* Ranks in reverse order: communicator rank r is world rank p - 1 - r. */
    MPI_Comm_split(MPI_COMM_WORLD, 0, p - rank, &reversed);
    run_all(MPI_COMM_WORLD, "MPI_COMM_WORLD", cases, n);
    run_all(dup, "a duplicate of MPI_COMM_WORLD", cases, n);
    run_all(halves, "a half (split by rank parity)", cases, n);
    run_all(reversed, "MPI_COMM_WORLD reversed (split)", cases, n);
    { /* communicators in turn, each call on another one */
      int i;
      for (i = 0; i < n; ++i) {
        run(MPI_COMM_WORLD, "MPI_COMM_WORLD in turn", &cases[i]);
        run(halves, "a half in turn", &cases[i]);
        run(dup, "the duplicate in turn", &cases[i]);
      }
    }
    MPI_Comm_free(&halves); /* the interposer's cache of it goes with it */
    MPI_Comm_free(&reversed);
    /* `dup` stays: the interposer frees its cache in MPI_Finalize */
  }
  MPI_Type_free(&int3);
  MPI_Type_free(&strided);
  MPI_Type_free(&holes);
  MPI_Type_free(&int2);
  PMPI_Reduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  PMPI_Reduce(&calls, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("collectives: %d calls on %d ranks, %d failures\n", total, p, all_failures);
  MPI_Finalize();
  return rank == 0 && all_failures ? 1 : 0;
}
