/// A pairwise alltoall that writes one element past its receive buffer: after a correct
/// exchange, it copies its first received element to just past the last block (where Open MPI
/// 10488's Bruck wrote). The guard after the buffer names the bytes.
#include <mpi.h>
#include <string.h>

int overflow_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  MPI_Aint lb, send_extent, recv_extent;
  MPI_Type_get_extent(sendtype, &lb, &send_extent);
  MPI_Type_get_extent(recvtype, &lb, &recv_extent);
  for (int step = 0; step < size; ++step) {
    int to = (rank + step) % size, from = (rank - step + size) % size;
    int err = MPI_Sendrecv((const char*)sendbuf + to * send_extent * sendcount, sendcount, sendtype,
                           to, 13, (char*)recvbuf + from * recv_extent * recvcount, recvcount,
                           recvtype, from, 13, comm, MPI_STATUS_IGNORE);
    if (err != MPI_SUCCESS) return err;
  }
  if (recvcount > 0) memcpy((char*)recvbuf + size * recv_extent * recvcount, recvbuf, 8);
  return MPI_SUCCESS;
}
