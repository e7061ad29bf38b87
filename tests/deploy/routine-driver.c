/* Links a routine written by `phasecheck deploy --emit-c` (tests/deploy/deploy-mpi.sh): calls
 * ROUTINE (-DROUTINE=phasecheck_..._alltoall) and PMPI_Alltoall from the same buffers, with
 * counts of 0 to 1000 ints, a strided type, MPI_IN_PLACE and a split communicator (of another
 * size: the routine hands it to PMPI_Alltoall). Rank 0 prints "routine: N calls, F failures". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ROUTINE(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
            int recvcount, MPI_Datatype recvtype, MPI_Comm comm);

static int calls = 0, failures = 0;

static void check(MPI_Comm comm, int count, MPI_Datatype type, int in_place) {
  int p, rank, i, err1, err2;
  MPI_Aint lb, extent;
  size_t bytes;
  unsigned char *send, *a, *b;
  MPI_Comm_size(comm, &p);
  MPI_Comm_rank(comm, &rank);
  MPI_Type_get_extent(type, &lb, &extent);
  bytes = (size_t)extent * count * p + 8;
  send = malloc(bytes);
  a = malloc(bytes);
  b = malloc(bytes);
  for (i = 0; i < (int)bytes; ++i) {
    send[i] = (unsigned char)(rank * 37 + i * 11);
    a[i] = b[i] = (unsigned char)(rank * 53 + i * 3);
  }
  err1 = ROUTINE(in_place ? MPI_IN_PLACE : send, count, type, a, count, type, comm);
  err2 = PMPI_Alltoall(in_place ? MPI_IN_PLACE : send, count, type, b, count, type, comm);
  ++calls;
  if (err1 != err2 || memcmp(a, b, bytes) != 0) {
    fprintf(stderr, "rank %d: %d elements%s on %d ranks differ from PMPI_Alltoall\n", rank, count,
            in_place ? " in place" : "", p);
    ++failures;
  }
  free(send);
  free(a);
  free(b);
}

int main(int argc, char **argv) {
  int rank, total, all_failures;
  MPI_Comm half;
  MPI_Datatype strided;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Type_vector(2, 1, 3, MPI_INT, &strided);
  MPI_Type_commit(&strided);
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  check(MPI_COMM_WORLD, 0, MPI_INT, 0);
  check(MPI_COMM_WORLD, 1, MPI_INT, 0);
  check(MPI_COMM_WORLD, 1000, MPI_INT, 0);
  check(MPI_COMM_WORLD, 3, MPI_DOUBLE, 0);
  check(MPI_COMM_WORLD, 2, strided, 0);
  check(MPI_COMM_WORLD, 5, MPI_INT, 1);
  check(half, 4, MPI_INT, 0);
  MPI_Comm_free(&half);
  MPI_Type_free(&strided);
  PMPI_Reduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  PMPI_Reduce(&calls, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("routine: %d calls, %d failures\n", total, all_failures);
  MPI_Finalize();
  return rank == 0 && all_failures ? 1 : 0;
}
