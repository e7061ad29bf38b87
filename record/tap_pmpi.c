/// Level pmpi: a user's routine, dlopen'ed by the driver, calls MPI_Send, MPI_Isend, ...; the
/// driver is linked with -rdynamic, so those names resolve to the definitions below (the
/// executable comes first in the global lookup scope), which record and forward to PMPI_.
#include <mpi.h>
#include <stdlib.h>

#include "events.h"
#include "log.h"
#include "tap.h"

static int recording;

void tap_pmpi_enable(int on) { recording = on; }

static int blocking_send(int (*send)(const void*, int, MPI_Datatype, int, int, MPI_Comm),
                         const void* buf, int count, MPI_Datatype type, int dest, int tag,
                         MPI_Comm comm) {
  if (!recording) return send(buf, count, type, dest, tag, comm);
  int slot = events_post(events_send, NULL, buf, (size_t)count, type, dest, tag, 1);
  int rc = send(buf, count, type, dest, tag, comm);
  if (rc == MPI_SUCCESS) events_complete_slot(slot, NULL);
  return rc;
}

int MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return blocking_send(PMPI_Send, buf, count, type, dest, tag, comm);
}
int MPI_Ssend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return blocking_send(PMPI_Ssend, buf, count, type, dest, tag, comm);
}
int MPI_Rsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return blocking_send(PMPI_Rsend, buf, count, type, dest, tag, comm);
}
int MPI_Bsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return blocking_send(PMPI_Bsend, buf, count, type, dest, tag, comm);
}

static int nonblocking_send(int (*isend)(const void*, int, MPI_Datatype, int, int, MPI_Comm,
                                         MPI_Request*),
                            const void* buf, int count, MPI_Datatype type, int dest, int tag,
                            MPI_Comm comm, MPI_Request* request) {
  int rc = isend(buf, count, type, dest, tag, comm, request);
  if (recording && rc == MPI_SUCCESS)
    events_post(events_send, *request, buf, (size_t)count, type, dest, tag, 0);
  return rc;
}

int MPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request* request) {
  return nonblocking_send(PMPI_Isend, buf, count, type, dest, tag, comm, request);
}
int MPI_Issend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
  return nonblocking_send(PMPI_Issend, buf, count, type, dest, tag, comm, request);
}

int MPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Status* status) {
  if (!recording) return PMPI_Recv(buf, count, type, source, tag, comm, status);
  int slot = events_post(events_recv, NULL, buf, (size_t)count, type, source, tag, 1);
  MPI_Status own;
  int rc = PMPI_Recv(buf, count, type, source, tag, comm, &own);
  if (rc == MPI_SUCCESS) events_complete_slot(slot, &own);
  if (status != MPI_STATUS_IGNORE) *status = own;
  return rc;
}

int MPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request* request) {
  int rc = PMPI_Irecv(buf, count, type, source, tag, comm, request);
  if (recording && rc == MPI_SUCCESS)
    events_post(events_recv, *request, buf, (size_t)count, type, source, tag, 0);
  return rc;
}

/// Recorded as what it means: both posted, then both waited for (a send and a receive that
/// cannot deadlock each other).
int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status* status) {
  if (!recording)
    return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                         source, recvtag, comm, status);
  int send_slot =
      events_post(events_send, NULL, sendbuf, (size_t)sendcount, sendtype, dest, sendtag, 0);
  int recv_slot =
      events_post(events_recv, NULL, recvbuf, (size_t)recvcount, recvtype, source, recvtag, 0);
  MPI_Status own;
  int rc = PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                         source, recvtag, comm, &own);
  if (rc == MPI_SUCCESS) {
    events_complete_slot(send_slot, NULL);
    events_complete_slot(recv_slot, &own);
  }
  if (status != MPI_STATUS_IGNORE) *status = own;
  return rc;
}

int MPI_Wait(MPI_Request* request, MPI_Status* status) {
  MPI_Request key = *request;
  MPI_Status own;
  int rc = PMPI_Wait(request, &own);
  if (recording && rc == MPI_SUCCESS) events_complete(key, &own);
  if (status != MPI_STATUS_IGNORE) *status = own;
  return rc;
}

int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  MPI_Request key = *request;
  MPI_Status own;
  int rc = PMPI_Test(request, flag, &own);
  if (rc == MPI_SUCCESS && *flag) {
    if (recording) events_complete(key, &own);
    if (status != MPI_STATUS_IGNORE) *status = own;
  }
  return rc;
}

/// The requests before the call (completed ones become MPI_REQUEST_NULL) and room for statuses.
struct copies {
  MPI_Request* keys;
  MPI_Status* statuses;
};

static struct copies copy(int count, const MPI_Request* requests) {
  size_t n = count > 0 ? (size_t)count : 1;
  struct copies made = {malloc(n * sizeof(MPI_Request)), malloc(n * sizeof(MPI_Status))};
  if (made.keys == NULL || made.statuses == NULL) abort();
  for (int i = 0; i < count; ++i) made.keys[i] = requests[i];
  return made;
}

static void release(struct copies made) {
  free(made.keys);
  free(made.statuses);
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  struct copies made = copy(count, requests);
  int rc = PMPI_Waitall(count, requests, made.statuses);
  for (int i = 0; i < count; ++i) {
    if (recording && rc == MPI_SUCCESS) events_complete(made.keys[i], &made.statuses[i]);
    if (statuses != MPI_STATUSES_IGNORE) statuses[i] = made.statuses[i];
  }
  release(made);
  return rc;
}

int MPI_Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  struct copies made = copy(count, requests);
  int rc = PMPI_Testall(count, requests, flag, made.statuses);
  for (int i = 0; rc == MPI_SUCCESS && *flag && i < count; ++i) {
    if (recording) events_complete(made.keys[i], &made.statuses[i]);
    if (statuses != MPI_STATUSES_IGNORE) statuses[i] = made.statuses[i];
  }
  release(made);
  return rc;
}

int MPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  struct copies made = copy(count, requests);
  int rc = PMPI_Waitany(count, requests, index, made.statuses);
  if (recording && rc == MPI_SUCCESS && *index != MPI_UNDEFINED)
    events_complete(made.keys[*index], &made.statuses[0]);
  if (status != MPI_STATUS_IGNORE) *status = made.statuses[0];
  release(made);
  return rc;
}

int MPI_Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                 MPI_Status statuses[]) {
  struct copies made = copy(incount, requests);
  int rc = PMPI_Waitsome(incount, requests, outcount, indices, made.statuses);
  for (int i = 0; rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED && i < *outcount; ++i) {
    if (recording) events_complete(made.keys[indices[i]], &made.statuses[i]);
    if (statuses != MPI_STATUSES_IGNORE) statuses[i] = made.statuses[i];
  }
  release(made);
  return rc;
}

int MPI_Request_free(MPI_Request* request) {
  if (recording) events_forget(*request);
  return PMPI_Request_free(request);
}

/// The abort line first: PMPI_Abort does not return and kills the job.
int MPI_Abort(MPI_Comm comm, int code) {
  if (log_is_open()) {
    log_line("{\"ev\":\"abort\",\"code\":%d}", code);
    log_flush();
  }
  return PMPI_Abort(comm, code);
}
