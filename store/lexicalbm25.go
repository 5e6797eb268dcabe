package store

// ragd_bm25: FTS5's bm25 with the phrases' weights given by the caller
// (docs/adr/0017-lexical-top-k.md, Decision 3).
//
// FTS5's own bm25() computes each phrase's idf by counting the rows of the
// phrase (xQueryPhrase) before it scores the first row: a walk of every
// phrase's doclist, however few rows the expression matches. The top-k
// pass asks FTS5 for a few rows with every word of the question beside
// them, and weighs each word once: it passes the table's row and token
// counts and each phrase's rows (the document frequencies the store reads
// anyway, or −1 for a phrase weighed 0), and this function computes the
// idfs and sums exactly what fts5_aux.c's fts5Bm25Function sums, in the
// same order with the same operations and the same libm log, so that its
// scores equal bm25()'s bit for bit (TestRagdBM25_EqualsBM25; Go's
// math.Log differs from libm's in the last place).
//
// It is registered on every connection the process opens, as sqlite-vec
// is (sqlite3_auto_extension: go-sqlite3 does not expose a connection's
// sqlite3*), through the fts5_api pointer FTS5 hands to `SELECT fts5(?1)`.

/*
#cgo linux LDFLAGS: -lm
#include <sqlite3.h>
#include <math.h>
#include <string.h>

// No fused multiply-add: the sums must round as fts5_aux.c's do (SQLite
// is built without -mfma, so its own are not fused).
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

// ragdBm25Data is what ragd_bm25 computes once per query (as
// fts5Bm25GetData does): the average row length and each phrase's weight.
typedef struct ragdBm25Data {
	int nPhrase;
	double avgdl;
	double *aIDF;
	double *aFreq;
} ragdBm25Data;

// ragdBm25Data computes the query's data from ragd_bm25's arguments:
// apVal[0] the rows, apVal[1] the tokens of the table, apVal[2 + i] the
// rows holding phrase i, or a negative number to weigh it 0 (so are the
// phrases past the last argument). The idf is fts5Bm25GetData's, with the
// same libm log.
static ragdBm25Data *ragdBm25Get(const Fts5ExtensionApi *pApi, Fts5Context *pFts,
                                 int nVal, sqlite3_value **apVal, int *pRc) {
	ragdBm25Data *p = (ragdBm25Data *)pApi->xGetAuxdata(pFts, 0);
	sqlite3_int64 nRow, nToken;
	int i, nPhrase;
	if (p != 0) {
		return p;
	}
	nPhrase = pApi->xPhraseCount(pFts);
	p = (ragdBm25Data *)sqlite3_malloc64(sizeof(ragdBm25Data) + sizeof(double) * 2 * (sqlite3_uint64)(nPhrase > 0 ? nPhrase : 1));
	if (p == 0) {
		*pRc = SQLITE_NOMEM;
		return 0;
	}
	p->nPhrase = nPhrase;
	p->aIDF = (double *)&p[1];
	p->aFreq = &p->aIDF[nPhrase > 0 ? nPhrase : 1];
	nRow = sqlite3_value_int64(apVal[0]);
	nToken = sqlite3_value_int64(apVal[1]);
	p->avgdl = (double)nToken / (double)nRow;
	for (i = 0; i < nPhrase; i++) {
		sqlite3_int64 nHit = (i + 2 < nVal) ? sqlite3_value_int64(apVal[i + 2]) : -1;
		p->aIDF[i] = 0.0;
		if (nHit >= 0) {
			double idf = log( (nRow - nHit + 0.5) / (nHit + 0.5) );
			if( idf<=0.0 ) idf = 1e-6;
			p->aIDF[i] = idf;
		}
	}
	*pRc = pApi->xSetAuxdata(pFts, p, sqlite3_free);
	if (*pRc != SQLITE_OK) {
		return 0;
	}
	return p;
}

// ragdBm25 is ragd_bm25(table, rows, tokens, hits0, hits1, ...): the row's
// score (as a positive number, the negation of bm25()'s), each instance
// counting 1 as bm25() counts it without column weights, D the row's token
// count, the sum fts5Bm25Function's.
static void ragdBm25(const Fts5ExtensionApi *pApi, Fts5Context *pFts,
                     sqlite3_context *pCtx, int nVal, sqlite3_value **apVal) {
	const double k1 = 1.2; // fts5_aux.c's constants
	const double b = 0.75;
	double score = 0.0;
	double D = 0.0;
	double *aFreq;
	ragdBm25Data *pData;
	int nInst = 0, nTok = 0, i, rc = SQLITE_OK;
	if (nVal < 2) {
		sqlite3_result_error(pCtx, "ragd_bm25: the table's rows and tokens are missing", -1);
		return;
	}
	pData = ragdBm25Get(pApi, pFts, nVal, apVal, &rc);
	if (pData == 0) {
		sqlite3_result_error_code(pCtx, rc);
		return;
	}
	aFreq = pData->aFreq;
	memset(aFreq, 0, sizeof(double) * (size_t)pData->nPhrase);
	rc = pApi->xInstCount(pFts, &nInst);
	for (i = 0; rc == SQLITE_OK && i < nInst; i++) {
		int ip, ic, io;
		rc = pApi->xInst(pFts, i, &ip, &ic, &io);
		if (rc == SQLITE_OK) {
			aFreq[ip] += 1.0;
		}
	}
	if (rc == SQLITE_OK) {
		rc = pApi->xColumnSize(pFts, -1, &nTok);
		D = (double)nTok;
	}
	if (rc == SQLITE_OK) {
		for (i = 0; i < pData->nPhrase; i++) {
			score += pData->aIDF[i] * (
				( aFreq[i] * (k1 + 1.0) ) /
				( aFreq[i] + k1 * (1 - b + b * D / pData->avgdl) )
			);
		}
		sqlite3_result_double(pCtx, score);
	} else {
		sqlite3_result_error_code(pCtx, rc);
	}
}

// ragdFts5Init registers ragd_bm25 on connection db (an auto-extension
// entry point).
static int ragdFts5Init(sqlite3 *db, char **pzErrMsg, const void *pThunk) {
	fts5_api *api = 0;
	sqlite3_stmt *st = 0;
	int rc = sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &st, 0);
	if (rc == SQLITE_OK) {
		sqlite3_bind_pointer(st, 1, (void *)&api, "fts5_api_ptr", 0);
		sqlite3_step(st);
		rc = sqlite3_finalize(st);
	}
	if (rc == SQLITE_OK && (api == 0 || api->iVersion < 2)) {
		rc = SQLITE_ERROR;
	}
	if (rc == SQLITE_OK) {
		rc = api->xCreateFunction(api, "ragd_bm25", 0, ragdBm25, 0);
	}
	if (rc != SQLITE_OK && pzErrMsg != 0) {
		*pzErrMsg = sqlite3_mprintf("register ragd_bm25: %s", sqlite3_errmsg(db));
	}
	return rc;
}

static int ragdRegisterBm25(void) {
	return sqlite3_auto_extension((void (*)(void))ragdFts5Init);
}
*/
import "C"

import "fmt"

// registerBM25 makes every connection opened from now on have ragd_bm25.
func registerBM25() error {
	if rc := C.ragdRegisterBm25(); rc != C.SQLITE_OK {
		return fmt.Errorf("register ragd_bm25: SQLite error %d", int(rc))
	}
	return nil
}
