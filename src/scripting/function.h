/* function: Redis 7.0 functions' libraries (FUNCTION LOAD and the rest).
 *
 * A library is the code given to FUNCTION LOAD: a first line of metadata
 * ("#!lua name=<lib>") and a Lua body that registers functions with
 * redis.register_function when it runs. The registry keeps every library
 * (its name, its whole code, as FUNCTION LIST WITHCODE, the RDB and FUNCTION
 * DUMP carry it) and every function by name (FCALL finds it there; a name
 * is unique across libraries, ASCII case ignored, as Redis 7.0's; library
 * names are case-sensitive). The Lua side (compiling the body in the
 * load-time sandbox, keeping the callbacks, calling one) is function_lua.c.
 *
 * Persistence (snapshot/, which knows this registry, not the other way):
 * a snapshot writes each library's code as one RDB opcode 245
 * (RDB_OPCODE_FUNCTION2) record before the databases (function_codes),
 * FUNCTION DUMP writes the same records followed by the DUMP footer, and a
 * loaded snapshot or a FUNCTION RESTORE creates the libraries from the code
 * again (function_create, function_ctx_*). Main thread only, but for
 * function_codes' result, whose objects any thread may read and release
 * (the forkless serializer writes them). */
#ifndef VERSO_FUNCTION_H
#define VERSO_FUNCTION_H

#include <stddef.h>
#include <stdint.h>

#include "obj.h"
#include "vbuf.h"

/* A function's flags (redis.register_function's `flags`), in the order
 * FUNCTION LIST names them. */
enum {
    FN_NO_WRITES = 1 << 0,
    FN_ALLOW_OOM = 1 << 1,
    FN_ALLOW_STALE = 1 << 2,
    FN_NO_CLUSTER = 1 << 3,
    FN_ALLOW_CROSS_SLOT = 1 << 4,
};
/* The flag's name for bit i (NULL past the last), and a name's bit (0 when
 * unknown; case-insensitive). */
const char *function_flag_name(int i);
int function_flag_bit(const char *name);

typedef struct fn_lib fn_lib;

typedef struct fn_func {
    char *name;
    char *desc;          /* NULL when not given */
    int flags;           /* FN_* */
    int ref;             /* the callback: function_lua.c's reference */
    fn_lib *lib;
} fn_func;

struct fn_lib {
    char *name;
    obj *code;           /* the whole code, metadata line included */
    fn_func **funcs;     /* in registration order */
    size_t nfuncs;
};

/* Creates a library from code (FUNCTION LOAD, an RDB's record, a RESTORE
 * payload's). replace: an existing library of the same name is replaced
 * (else "Library '<name>' already exists"). timeout_ms bounds the time the
 * body runs (0: none, for a replayed or loaded library). Returns the
 * library's name (heap), or NULL with *err set (heap): Redis's text without
 * the "ERR " prefix. */
char *function_create(const char *code, size_t len, int replace, int64_t timeout_ms,
                      char **err);
/* Deletes a library by name: 1, or 0 when there is none. */
int function_delete(const char *name, size_t len);
/* Deletes every library. */
void function_flush(void);
/* The function of that name (case ignored), or NULL. */
fn_func *function_find(const char *name, size_t len);
/* Iteration over the libraries (FUNCTION LIST), in load order. */
size_t function_lib_count(void);
fn_lib *function_lib_at(size_t i);
size_t function_count(void);

/* A registry context of its own (FUNCTION RESTORE's payload, a replica's
 * loaded snapshot): libraries are created in it (checked against each
 * other only), then committed to the server's with a policy: APPEND (a
 * library or function whose name exists fails it all), REPLACE (libraries
 * of the same name are replaced; functions must still be unique) or FLUSH
 * (the context replaces every library). commit frees the context and
 * returns 0, or -1 with *err (heap, Redis's text without "ERR ") and the
 * server's libraries unchanged. */
typedef struct fn_ctx fn_ctx;
enum { FN_RESTORE_APPEND = 0, FN_RESTORE_REPLACE = 1, FN_RESTORE_FLUSH = 2 };
fn_ctx *function_ctx_new(void);
char *function_ctx_create(fn_ctx *x, const char *code, size_t len, char **err);
int function_ctx_commit(fn_ctx *x, int policy, char **err);
void function_ctx_free(fn_ctx *x);

/* Replaces every library with those of codes (a replica's full sync, as
 * Redis empties the functions with the data). 0, or -1 with *err (heap)
 * and the libraries unchanged. */
int function_replace_all(obj *const *codes, size_t n, char **err);

/* The libraries' codes for a save: a heap array of references (the caller
 * releases them with function_codes_free, from any thread). *n set; NULL
 * when there is none. */
obj **function_codes(size_t *n);
void function_codes_free(obj **codes, size_t n);

/* Used memory of the Lua state functions run in (INFO used_memory_vm_functions). */
size_t function_vm_memory(void);
/* Bytes of the registry: codes, names, descriptions and their structs
 * (INFO used_memory_functions; Redis counts its dicts' overhead too). */
size_t function_memory(void);
/* INFO memory's functions fields, as Redis 7.0 names them:
 * number_of_functions, number_of_libraries, used_memory_vm_functions,
 * used_memory_functions. */
void function_info_memory(vbuf *b);

#endif
