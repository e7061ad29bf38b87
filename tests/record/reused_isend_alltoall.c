/// An alltoall that reuses its staging buffer too early: each block is packed into one staging
/// buffer and sent with MPI_Isend, and the next block is packed over it before the MPI_Wait.
/// Small messages leave eagerly, so the output is right; lifetime names the overwritten send.
#include <mpi.h>
#include <stdlib.h>

int reused_isend_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                          void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  int rank, size, packed = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  MPI_Aint lb, send_extent, recv_extent;
  MPI_Type_get_extent(sendtype, &lb, &send_extent);
  MPI_Type_get_extent(recvtype, &lb, &recv_extent);
  MPI_Pack_size(sendcount, sendtype, comm, &packed);
  char* staging = malloc(packed > 0 ? (size_t)packed : 1);
  MPI_Request* receives = malloc(sizeof(MPI_Request) * (size_t)size);
  MPI_Request* sends = malloc(sizeof(MPI_Request) * (size_t)size);
  for (int from = 0; from < size; ++from)
    MPI_Irecv((char*)recvbuf + from * recv_extent * recvcount, recvcount, recvtype, from, 15, comm,
              &receives[from]);
  for (int to = 0; to < size; ++to) {
    int position = 0;
    MPI_Pack((const char*)sendbuf + to * send_extent * sendcount, sendcount, sendtype, staging,
             packed, &position, comm);
    MPI_Isend(staging, position, MPI_PACKED, to, 15, comm, &sends[to]);
  }
  MPI_Waitall(size, sends, MPI_STATUSES_IGNORE);
  int err = MPI_Waitall(size, receives, MPI_STATUSES_IGNORE);
  free(sends);
  free(receives);
  free(staging);
  return err;
}
