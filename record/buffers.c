#include "buffers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t buffers_tag(uint64_t origin, uint64_t dest, uint64_t index) {
  return (uint64_t)0xE7 << 56 | origin << 40 | dest << 24 | index;
}

int buffers_types_known(const char* name) {
  return strcmp(name, "contiguous") == 0 || strcmp(name, "strided") == 0 ||
         strcmp(name, "resized") == 0 || strcmp(name, "different") == 0;
}

static MPI_Datatype committed(MPI_Datatype type) {
  PMPI_Type_commit(&type);
  return type;
}

static MPI_Datatype vector_of(int count, int stride) {
  MPI_Datatype vector;
  PMPI_Type_vector(count, 1, stride, MPI_UINT64_T, &vector);
  return vector;
}

static MPI_Datatype resized_to(MPI_Datatype inner, MPI_Aint extent) {
  MPI_Datatype resized;
  PMPI_Type_create_resized(inner, 0, extent, &resized);
  return resized;
}

struct buffers_types buffers_types_make(const char* name, int count) {
  // COUNT = 0 is passed as count 0 of the COUNT = 1 types: a vector of 0 items would be a
  // different datatype, not the same one sent empty.
  int items = count > 0 ? count : 1;
  int used = count > 0 ? 1 : 0;
  struct buffers_types types = {MPI_UINT64_T, count, MPI_UINT64_T, count};
  if (strcmp(name, "strided") == 0) {
    types.send_type = committed(vector_of(items, 2));
    types.recv_type = committed(vector_of(items, 2));
    types.send_count = types.recv_count = used;
  } else if (strcmp(name, "resized") == 0) {
    types.send_type = committed(resized_to(MPI_UINT64_T, 24));
    types.recv_type = committed(resized_to(MPI_UINT64_T, 24));
  } else if (strcmp(name, "different") == 0) {
    MPI_Datatype vector = vector_of(items, 3);
    types.recv_type = committed(resized_to(vector, (MPI_Aint)(3 * items + 1) * 8));
    PMPI_Type_free(&vector);
    types.recv_count = used;
  }
  return types;
}

static void free_derived(MPI_Datatype* type) {
  if (*type != MPI_UINT64_T) PMPI_Type_free(type);
}

void buffers_types_free(struct buffers_types* types) {
  free_derived(&types->send_type);
  free_derived(&types->recv_type);
}

/// A marker: distinct from the guard (0xCD..), the unwritten 0xDB.. and every element tag (0xE7..).
static uint64_t marker(size_t i) { return (uint64_t)0x4D4B << 48 | (uint64_t)i; }

static void find_offsets(struct buffers_allocation* allocation, MPI_Datatype type, int items) {
  size_t n = allocation->elements;
  uint64_t* markers = malloc((n > 0 ? n : 1) * sizeof *markers);
  if (markers == NULL) abort();
  for (size_t i = 0; i < n; ++i) markers[i] = marker(i);
  // Packed with MPI_UINT64_T, unpacked with the case's type: MPI places marker i where element i
  // of the type map lives.
  int packed_size = 0;
  PMPI_Pack_size((int)n, MPI_UINT64_T, MPI_COMM_WORLD, &packed_size);
  void* packed = malloc(packed_size > 0 ? (size_t)packed_size : 1);
  if (packed == NULL) abort();
  int position = 0;
  PMPI_Pack(markers, (int)n, MPI_UINT64_T, packed, packed_size, &position, MPI_COMM_WORLD);
  int unpacked = 0;
  if (items > 0)
    PMPI_Unpack(packed, position, &unpacked, allocation->base + BUFFERS_GUARD, items, type,
                MPI_COMM_WORLD);
  size_t found = 0;
  for (size_t i = 0; i < n; ++i) allocation->offsets[i] = SIZE_MAX;
  for (size_t at = 0; at + 8 <= allocation->bytes; at += 8) {
    uint64_t value;
    memcpy(&value, allocation->base + at, 8);
    if (value >> 48 != 0x4D4B || (value & 0xFFFFFFFFFFFFu) >= n) continue;
    size_t i = (size_t)(value & 0xFFFFFFFFFFFFu);
    if (allocation->offsets[i] != SIZE_MAX) {  // twice: not one place per element
      found = 0;
      break;
    }
    allocation->offsets[i] = at;
    ++found;
  }
  if (found != n) {
    fprintf(stderr, "phasecheck-record-driver: MPI_Unpack placed %zu of %zu markers\n", found, n);
    exit(3);
  }
  free(packed);
  free(markers);
  memset(allocation->base, 0xCD, allocation->bytes);
}

struct buffers_allocation buffers_allocate(MPI_Datatype type, int count, int blocks) {
  MPI_Aint lb = 0, extent = 0;
  PMPI_Type_get_extent(type, &lb, &extent);
  int type_size = 0;
  PMPI_Type_size(type, &type_size);
  size_t data = (size_t)blocks * (size_t)count * (size_t)extent;
  struct buffers_allocation allocation = {
      .bytes = BUFFERS_GUARD + data + BUFFERS_GUARD,
      .elements = (size_t)blocks * (size_t)count * (size_t)type_size / 8,
  };
  allocation.base = malloc(allocation.bytes);
  allocation.offsets = malloc((allocation.elements > 0 ? allocation.elements : 1) * 8);
  if (allocation.base == NULL || allocation.offsets == NULL) abort();
  memset(allocation.base, 0xCD, allocation.bytes);
  find_offsets(&allocation, type, blocks * count);
  return allocation;
}

void buffers_free(struct buffers_allocation* allocation) {
  free(allocation->base);
  free(allocation->offsets);
  allocation->base = NULL;
  allocation->offsets = NULL;
}

void buffers_set(struct buffers_allocation* allocation, size_t i, uint64_t value) {
  memcpy(allocation->base + allocation->offsets[i], &value, 8);
}
