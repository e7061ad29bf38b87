/* Erroneous calls under the interposer (tests/deploy/deploy-mpi.sh, case `erroneous`): a
 * negative count, MPI_DATATYPE_NULL, MPI_IN_PLACE as the receive buffer, each on MPI_Alltoall
 * and MPI_Allgather, with MPI_ERRORS_RETURN. The library checks these arguments locally, before
 * any communication; the interposer must hand such a call to PMPI_ untouched, so that MPI_ and
 * PMPI_ answer with the same error class (today's fault: a negative count became a huge size_t
 * that reached memcpy and crashed every rank). Rank 0 prints "erroneous: N calls, F failures".
 * `erroneous alltoallv` makes the same calls of MPI_Alltoallv instead (4 ranks). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

typedef int (*collective)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm);

typedef struct {
  const char *name;
  int allgather, in_place_recv;
  int sendcount, recvcount;
  MPI_Datatype sendtype, recvtype;
} Case;

/* MPI_Alltoallv's erroneous calls on 4 ranks: counts[2] below 0 on one side or the other,
 * MPI_DATATYPE_NULL, MPI_IN_PLACE as the receive buffer. Returns the failures. */
static int alltoallv_cases(int rank, int *calls) {
  int failures = 0, i;
  int send[64], recv[64], good[4] = {1, 1, 1, 1}, negative[4] = {1, 1, -1, 1};
  int displs[4] = {0, 1, 2, 3};
  const struct {
    const char *name;
    const int *sendcounts, *recvcounts;
    MPI_Datatype sendtype;
    int in_place_recv;
  } cases[] = {
      {"alltoallv sendcounts[2] = -1", negative, good, MPI_INT, 0},
      {"alltoallv recvcounts[2] = -1", good, negative, MPI_INT, 0},
      {"alltoallv MPI_DATATYPE_NULL", good, good, MPI_DATATYPE_NULL, 0},
      {"alltoallv MPI_IN_PLACE as the receive buffer", good, good, MPI_INT, 1},
  };
  for (i = 0; i < (int)(sizeof cases / sizeof cases[0]); ++i) {
    void *recvbuf = cases[i].in_place_recv ? MPI_IN_PLACE : (void *)recv;
    int err1 = MPI_Alltoallv(send, cases[i].sendcounts, displs, cases[i].sendtype, recvbuf,
                             cases[i].recvcounts, displs, MPI_INT, MPI_COMM_WORLD);
    int err2 = PMPI_Alltoallv(send, cases[i].sendcounts, displs, cases[i].sendtype, recvbuf,
                              cases[i].recvcounts, displs, MPI_INT, MPI_COMM_WORLD);
    int class1 = -1, class2 = -1;
    MPI_Error_class(err1, &class1);
    MPI_Error_class(err2, &class2);
    ++*calls;
    if (err2 == MPI_SUCCESS || class1 != class2) {
      fprintf(stderr, "rank %d: %s: error class %d, the library's %d\n", rank, cases[i].name,
              class1, class2);
      ++failures;
    }
  }
  return failures;
}

int main(int argc, char **argv) {
  int rank, i, calls = 0, failures = 0, all_failures = 0, all_calls = 0;
  int send[64], recv[64];
  const Case cases[] = {
      {"alltoall count -1", 0, 0, -1, -1, MPI_INT, MPI_INT},
      {"alltoall recvcount -1", 0, 0, 1, -1, MPI_INT, MPI_INT},
      {"alltoall sendcount -2^31", 0, 0, -2147483647 - 1, 1, MPI_INT, MPI_INT},
      {"alltoall MPI_DATATYPE_NULL", 0, 0, 1, 1, MPI_DATATYPE_NULL, MPI_INT},
      {"alltoall MPI_IN_PLACE as the receive buffer", 0, 1, 1, 1, MPI_INT, MPI_INT},
      {"allgather count -1", 1, 0, -1, -1, MPI_INT, MPI_INT},
      {"allgather recvcount -7", 1, 0, 1, -7, MPI_INT, MPI_INT},
      {"allgather MPI_DATATYPE_NULL", 1, 0, 1, 1, MPI_INT, MPI_DATATYPE_NULL},
  };
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (argc > 1 && strcmp(argv[1], "alltoallv") == 0) {
    failures = alltoallv_cases(rank, &calls);
    PMPI_Reduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    PMPI_Reduce(&calls, &all_calls, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("erroneous: %d calls, %d failures\n", all_calls, all_failures);
    MPI_Finalize();
    return rank == 0 && all_failures ? 1 : 0;
  }
  for (i = 0; i < (int)(sizeof cases / sizeof cases[0]); ++i) {
    const Case *c = &cases[i];
    const collective ours = c->allgather ? MPI_Allgather : MPI_Alltoall;
    const collective library = c->allgather ? PMPI_Allgather : PMPI_Alltoall;
    void *recvbuf = c->in_place_recv ? MPI_IN_PLACE : (void *)recv;
    int err1 = ours(send, c->sendcount, c->sendtype, recvbuf, c->recvcount, c->recvtype,
                    MPI_COMM_WORLD);
    int err2 = library(send, c->sendcount, c->sendtype, recvbuf, c->recvcount, c->recvtype,
                       MPI_COMM_WORLD);
    int class1 = -1, class2 = -1;
    MPI_Error_class(err1, &class1);
    MPI_Error_class(err2, &class2);
    ++calls;
    if (err2 == MPI_SUCCESS || class1 != class2) {
      fprintf(stderr, "rank %d: %s: error class %d, the library's %d\n", rank, c->name, class1,
              class2);
      ++failures;
    }
  }
  PMPI_Reduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  PMPI_Reduce(&calls, &all_calls, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("erroneous: %d calls, %d failures\n", all_calls, all_failures);
  MPI_Finalize();
  return rank == 0 && all_failures ? 1 : 0;
}
