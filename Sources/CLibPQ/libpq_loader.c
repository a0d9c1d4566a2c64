// libpq through dlopen (see include/clibpq.h): libpq-fe.h gives the types and checks every
// signature below; the functions are looked up in libpq.so.5 when the first connection opens.
// Each is defined under libpq's own name and calls the library's through the pointer dlsym
// found in that library's handle, so it never calls itself.
#include "clibpq.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static struct {
    __typeof__(PQconnectdb) *PQconnectdb;
    __typeof__(PQfinish) *PQfinish;
    __typeof__(PQreset) *PQreset;
    __typeof__(PQstatus) *PQstatus;
    __typeof__(PQtransactionStatus) *PQtransactionStatus;
    __typeof__(PQerrorMessage) *PQerrorMessage;
    __typeof__(PQsocket) *PQsocket;
    __typeof__(PQbackendPID) *PQbackendPID;
    __typeof__(PQsetNoticeProcessor) *PQsetNoticeProcessor;
    __typeof__(PQconninfoParse) *PQconninfoParse;
    __typeof__(PQconninfoFree) *PQconninfoFree;
    __typeof__(PQexec) *PQexec;
    __typeof__(PQexecParams) *PQexecParams;
    __typeof__(PQprepare) *PQprepare;
    __typeof__(PQexecPrepared) *PQexecPrepared;
    __typeof__(PQresultStatus) *PQresultStatus;
    __typeof__(PQresultErrorMessage) *PQresultErrorMessage;
    __typeof__(PQresultErrorField) *PQresultErrorField;
    __typeof__(PQntuples) *PQntuples;
    __typeof__(PQnfields) *PQnfields;
    __typeof__(PQfname) *PQfname;
    __typeof__(PQfnumber) *PQfnumber;
    __typeof__(PQgetvalue) *PQgetvalue;
    __typeof__(PQgetlength) *PQgetlength;
    __typeof__(PQftype) *PQftype;
    __typeof__(PQgetisnull) *PQgetisnull;
    __typeof__(PQcmdStatus) *PQcmdStatus;
    __typeof__(PQcmdTuples) *PQcmdTuples;
    __typeof__(PQclear) *PQclear;
    __typeof__(PQconsumeInput) *PQconsumeInput;
    __typeof__(PQnotifies) *PQnotifies;
    __typeof__(PQescapeIdentifier) *PQescapeIdentifier;
    __typeof__(PQfreemem) *PQfreemem;
} pq;
static int loaded;
static char failure[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    void *library = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(failure, sizeof failure, "%s", dlerror());
        return;
    }
#define FIND(name) \
    if (!(*(void **)&pq.name = dlsym(library, #name))) { \
        snprintf(failure, sizeof failure, "libpq.so.5 has no %s", #name); \
        return; \
    }
    FIND(PQconnectdb)
    FIND(PQfinish)
    FIND(PQreset)
    FIND(PQstatus)
    FIND(PQtransactionStatus)
    FIND(PQerrorMessage)
    FIND(PQsocket)
    FIND(PQbackendPID)
    FIND(PQsetNoticeProcessor)
    FIND(PQconninfoParse)
    FIND(PQconninfoFree)
    FIND(PQexec)
    FIND(PQexecParams)
    FIND(PQprepare)
    FIND(PQexecPrepared)
    FIND(PQresultStatus)
    FIND(PQresultErrorMessage)
    FIND(PQresultErrorField)
    FIND(PQntuples)
    FIND(PQnfields)
    FIND(PQfname)
    FIND(PQfnumber)
    FIND(PQgetvalue)
    FIND(PQgetlength)
    FIND(PQftype)
    FIND(PQgetisnull)
    FIND(PQcmdStatus)
    FIND(PQcmdTuples)
    FIND(PQclear)
    FIND(PQconsumeInput)
    FIND(PQnotifies)
    FIND(PQescapeIdentifier)
    FIND(PQfreemem)
#undef FIND
    loaded = 1;
}

int clibpq_available(void) {
    pthread_once(&once, load);
    return loaded;
}

const char *clibpq_load_error(void) {
    return clibpq_available() ? NULL : failure;
}

static void ignore_notice(void *arg, const char *message) { (void)arg; (void)message; }

void clibpq_ignore_notices(PGconn *connection) { pq.PQsetNoticeProcessor(connection, ignore_notice, NULL); }

// Only ever called after clibpq_available() said yes (PostgreSQLConnection checks it first).
PGconn *PQconnectdb(const char *conninfo) { return pq.PQconnectdb(conninfo); }
void PQfinish(PGconn *conn) { pq.PQfinish(conn); }
void PQreset(PGconn *conn) { pq.PQreset(conn); }
ConnStatusType PQstatus(const PGconn *conn) { return pq.PQstatus(conn); }
PGTransactionStatusType PQtransactionStatus(const PGconn *conn) { return pq.PQtransactionStatus(conn); }
char *PQerrorMessage(const PGconn *conn) { return pq.PQerrorMessage(conn); }
int PQsocket(const PGconn *conn) { return pq.PQsocket(conn); }
int PQbackendPID(const PGconn *conn) { return pq.PQbackendPID(conn); }
PQnoticeProcessor PQsetNoticeProcessor(PGconn *conn, PQnoticeProcessor proc, void *arg) { return pq.PQsetNoticeProcessor(conn, proc, arg); }
PQconninfoOption *PQconninfoParse(const char *conninfo, char **errmsg) { return pq.PQconninfoParse(conninfo, errmsg); }
void PQconninfoFree(PQconninfoOption *connOptions) { pq.PQconninfoFree(connOptions); }
PGresult *PQexec(PGconn *conn, const char *query) { return pq.PQexec(conn, query); }
PGresult *PQexecParams(PGconn *conn, const char *command, int nParams, const Oid *paramTypes, const char *const *paramValues, const int *paramLengths, const int *paramFormats, int resultFormat) { return pq.PQexecParams(conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats, resultFormat); }
PGresult *PQprepare(PGconn *conn, const char *stmtName, const char *query, int nParams, const Oid *paramTypes) { return pq.PQprepare(conn, stmtName, query, nParams, paramTypes); }
PGresult *PQexecPrepared(PGconn *conn, const char *stmtName, int nParams, const char *const *paramValues, const int *paramLengths, const int *paramFormats, int resultFormat) { return pq.PQexecPrepared(conn, stmtName, nParams, paramValues, paramLengths, paramFormats, resultFormat); }
ExecStatusType PQresultStatus(const PGresult *res) { return pq.PQresultStatus(res); }
char *PQresultErrorMessage(const PGresult *res) { return pq.PQresultErrorMessage(res); }
char *PQresultErrorField(const PGresult *res, int fieldcode) { return pq.PQresultErrorField(res, fieldcode); }
int PQntuples(const PGresult *res) { return pq.PQntuples(res); }
int PQnfields(const PGresult *res) { return pq.PQnfields(res); }
char *PQfname(const PGresult *res, int field_num) { return pq.PQfname(res, field_num); }
int PQfnumber(const PGresult *res, const char *field_name) { return pq.PQfnumber(res, field_name); }
char *PQgetvalue(const PGresult *res, int tup_num, int field_num) { return pq.PQgetvalue(res, tup_num, field_num); }
int PQgetlength(const PGresult *res, int tup_num, int field_num) { return pq.PQgetlength(res, tup_num, field_num); }
Oid PQftype(const PGresult *res, int field_num) { return pq.PQftype(res, field_num); }
int PQgetisnull(const PGresult *res, int tup_num, int field_num) { return pq.PQgetisnull(res, tup_num, field_num); }
char *PQcmdStatus(PGresult *res) { return pq.PQcmdStatus(res); }
char *PQcmdTuples(PGresult *res) { return pq.PQcmdTuples(res); }
void PQclear(PGresult *res) { pq.PQclear(res); }
int PQconsumeInput(PGconn *conn) { return pq.PQconsumeInput(conn); }
PGnotify *PQnotifies(PGconn *conn) { return pq.PQnotifies(conn); }
char *PQescapeIdentifier(PGconn *conn, const char *str, size_t len) { return pq.PQescapeIdentifier(conn, str, len); }
void PQfreemem(void *ptr) { pq.PQfreemem(ptr); }
