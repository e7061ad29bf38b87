/// Bruck's alltoall (radix 2) on packed blocks, with a planted bug: the final inverse rotation
/// is off by one when p is not a power of two (the kind of slip that only shows at some p).
/// Powers of two pass; at p = 3, 5, 6, 7, ... placement names the misplaced elements.
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

int bruck_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  int rank, size, block = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  MPI_Aint lb, send_extent, recv_extent;
  MPI_Type_get_extent(sendtype, &lb, &send_extent);
  MPI_Type_get_extent(recvtype, &lb, &recv_extent);
  MPI_Pack_size(sendcount, sendtype, comm, &block);
  const size_t all = (size_t)block * (size_t)size + 1;
  char *rotated = malloc(all), *out = malloc(all), *in = malloc(all);
  // Phase 1: rotated block i is the block for rank + i.
  for (int i = 0; i < size; ++i) {
    int position = 0;
    MPI_Pack((const char*)sendbuf + ((rank + i) % size) * send_extent * sendcount, sendcount,
             sendtype, rotated + (size_t)i * block, block, &position, comm);
  }
  // Phase 2: at distance k, the blocks whose index has bit k go k ranks on.
  int err = MPI_SUCCESS;
  for (int k = 1; k < size && err == MPI_SUCCESS; k <<= 1) {
    int n = 0;
    for (int i = 0; i < size; ++i)
      if (i & k) memcpy(out + (size_t)(n++) * block, rotated + (size_t)i * block, (size_t)block);
    err = MPI_Sendrecv(out, n * block, MPI_PACKED, (rank + k) % size, 18, in, n * block,
                       MPI_PACKED, (rank - k + size) % size, 18, comm, MPI_STATUS_IGNORE);
    n = 0;
    for (int i = 0; i < size; ++i)
      if (i & k) memcpy(rotated + (size_t)i * block, in + (size_t)(n++) * block, (size_t)block);
  }
  // Phase 3: rotated block i came from rank - i. The bug: one off when p is not a power of two.
  const int slip = (size & (size - 1)) ? 1 : 0;
  for (int i = 0; i < size && err == MPI_SUCCESS; ++i) {
    int position = 0;
    MPI_Unpack(rotated + (size_t)i * block, block, &position,
               (char*)recvbuf + ((rank - i + slip + size) % size) * recv_extent * recvcount,
               recvcount, recvtype, comm);
  }
  free(rotated);
  free(out);
  free(in);
  return err;
}
