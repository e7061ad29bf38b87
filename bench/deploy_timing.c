/* Times the interposed collectives against the library's own in the same run
 * (scripts/deploy-benchmark, docs/run.md "Deploy"). Under LD_PRELOAD of a library made by
 * `phasecheck deploy`, MPI_Alltoall / MPI_Allgather are the deployed schedule and PMPI_Alltoall /
 * PMPI_Allgather Open MPI's own. For each message size (bytes per message or contribution, the
 * arguments after the collective's name) both are called REPEATS times, alternately, each call
 * after a barrier; a call's time is the slowest rank's; the median is printed. Rank 0 prints one
 * line per size: "COLLECTIVE RANKS BYTES SCHEDULE_SECONDS LIBRARY_SECONDS". Both results are
 * compared byte for byte; a difference exits 1. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { REPEATS = 21 };

static int by_value(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

typedef int (*collective)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm);

static double timed(collective f, const void *send, int bytes, void *recv) {
  double start, mine, slowest;
  PMPI_Barrier(MPI_COMM_WORLD);
  start = MPI_Wtime();
  f(send, bytes, MPI_BYTE, recv, bytes, MPI_BYTE, MPI_COMM_WORLD);
  mine = MPI_Wtime() - start;
  PMPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

int main(int argc, char **argv) {
  int rank, p, i, r, status = 0;
  int allgather;
  collective mine, library;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  if (argc < 3) {
    if (rank == 0) fprintf(stderr, "usage: deploy_timing alltoall|allgather BYTES...\n");
    MPI_Finalize();
    return 2;
  }
  allgather = strcmp(argv[1], "allgather") == 0;
  mine = allgather ? MPI_Allgather : MPI_Alltoall;
  library = allgather ? PMPI_Allgather : PMPI_Alltoall;
  for (i = 2; i < argc; ++i) {
    const int bytes = atoi(argv[i]);
    const size_t total = (size_t)bytes * p;
    unsigned char *send = malloc(total), *a = malloc(total), *b = malloc(total);
    double ours[REPEATS], theirs[REPEATS];
    size_t k;
    for (k = 0; k < total; ++k) send[k] = (unsigned char)(rank * 29 + k * 13);
    timed(mine, send, bytes, a); /* warm up: the interposer's cache, the library's connections */
    timed(library, send, bytes, b);
    for (r = 0; r < REPEATS; ++r) {
      ours[r] = timed(mine, send, bytes, a);
      theirs[r] = timed(library, send, bytes, b);
    }
    if (memcmp(a, b, total) != 0) {
      fprintf(stderr, "rank %d: %d bytes: results differ from the library's\n", rank, bytes);
      status = 1;
    }
    qsort(ours, REPEATS, sizeof(double), by_value);
    qsort(theirs, REPEATS, sizeof(double), by_value);
    if (rank == 0)
      printf("%s %d %d %.9f %.9f\n", argv[1], p, bytes, ours[REPEATS / 2], theirs[REPEATS / 2]);
    free(send);
    free(a);
    free(b);
  }
  MPI_Finalize();
  return status;
}
