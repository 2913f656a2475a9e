// Bad input through the C ABI, from C: every call returns an error code
// and a message naming the problem, leaves its outputs untouched, and the
// host goes on (a valid call afterwards still works). Run by
// tests/bad_input.rs; prints one line per check and exits nonzero if any
// failed.
#include <stdio.h>
#include <string.h>

#include "tenten.h"

static int checks = 0, failures = 0;

// `status` is `want` and the last error contains `needle`.
static void expect(const char *what, TentenStatus status, TentenStatus want, const char *needle) {
    const char *message = tenten_last_error();
    checks++;
    if (status != want || strstr(message, needle) == NULL) {
        failures++;
        printf("FAIL %s: status %d (want %d), message \"%s\" (want \"%s\" in it)\n", what, (int)status, (int)want,
               message, needle);
    } else {
        printf("ok   %s: %d \"%s\"\n", what, (int)status, message);
    }
}

static void expect_true(const char *what, int condition) {
    checks++;
    if (!condition) {
        failures++;
        printf("FAIL %s\n", what);
    } else {
        printf("ok   %s\n", what);
    }
}

int main(void) {
    TentenGenerator *generator = NULL;
    TentenRules *rules = NULL;
    uint8_t board[100] = {0};
    uint8_t holder[3] = {0, 1, 2};

    // Null pointers: handles, strings, arrays and outputs.
    expect("NULL path", tenten_generator_load(NULL, NULL, &generator), TENTEN_STATUS_NULL_POINTER, "path is NULL");
    expect_true("NULL path leaves the output alone", generator == NULL);
    expect("NULL result", tenten_generator_preset("repair", NULL, NULL), TENTEN_STATUS_NULL_POINTER,
           "result is NULL");
    expect("NULL generator", tenten_rules_new(NULL, 10, 10, 3, &rules), TENTEN_STATUS_NULL_POINTER,
           "generator is NULL");
    TentenValidation verdict;
    memset(&verdict, 0xAB, sizeof verdict);
    expect("NULL rules", tenten_validate(NULL, board, 100, holder, 3, &verdict), TENTEN_STATUS_NULL_POINTER,
           "rules is NULL");
    expect_true("a failed validate leaves its result alone", verdict.solvable == 0xAB && verdict.step_count == 0xAB);

    if (tenten_generator_preset("repair", NULL, &generator) != TENTEN_STATUS_OK ||
        tenten_rules_new(generator, 10, 10, 3, &rules) != TENTEN_STATUS_OK) {
        printf("FAIL cannot make the rules: %s\n", tenten_last_error());
        return 1;
    }
    expect("NULL cells", tenten_validate(rules, NULL, 100, holder, 3, &verdict), TENTEN_STATUS_NULL_POINTER,
           "cells is NULL");
    expect("NULL holder", tenten_validate(rules, board, 100, NULL, 3, &verdict), TENTEN_STATUS_NULL_POINTER,
           "holder is NULL");
    TentenDealer *dealer = NULL;
    TentenDeal deal;
    expect("NULL dealer", tenten_dealer_next(NULL, board, 100, &deal), TENTEN_STATUS_NULL_POINTER,
           "dealer is NULL");

    // A board of the wrong size.
    expect("8x8 board on 10x10 rules", tenten_validate(rules, board, 64, holder, 3, &verdict),
           TENTEN_STATUS_INVALID_ARGUMENT, "the board has 64 cells; these rules play on a 10x10 board of 100 cells");
    TentenDanger danger;
    expect("danger of a 101-cell board", tenten_danger(rules, board, 101, &danger), TENTEN_STATUS_INVALID_ARGUMENT,
           "101 cells");
    if (tenten_dealer_new(rules, 7, &dealer) != TENTEN_STATUS_OK) return 1;
    expect("deal for a 0-cell board", tenten_dealer_next(dealer, board, 0, &deal), TENTEN_STATUS_INVALID_ARGUMENT,
           "0 cells");
    expect("a game ended neither fair nor unfair", tenten_dealer_game_ended(dealer, 12, 2),
           TENTEN_STATUS_INVALID_ARGUMENT, "unfair is 2");
    expect("a game ended on a NULL dealer", tenten_dealer_game_ended(NULL, 12, 0), TENTEN_STATUS_NULL_POINTER,
           "dealer");
    TentenRules *huge = NULL;
    expect("a 30x30 board", tenten_rules_new(generator, 30, 30, 3, &huge), TENTEN_STATUS_INVALID_ARGUMENT,
           "each side must be 4 to 16");
    expect("a holder of 9", tenten_rules_new(generator, 10, 10, 9, &huge), TENTEN_STATUS_INVALID_ARGUMENT,
           "1 to 4 pieces");
    expect_true("failed rules are not made", huge == NULL);
    expect("an empty holder", tenten_validate(rules, board, 100, holder, 0, &verdict), TENTEN_STATUS_INVALID_ARGUMENT,
           "not 0");

    // Unknown pieces, by id and by index.
    uint8_t index = 77;
    expect("unknown piece id", tenten_rules_piece_index(rules, "Z9", &index), TENTEN_STATUS_UNKNOWN_PIECE,
           "no piece \"Z9\"");
    expect_true("an unknown id leaves the index alone", index == 77);
    uint8_t bad_holder[3] = {0, 42, 1};
    expect("unknown piece index in a holder", tenten_validate(rules, board, 100, bad_holder, 3, &verdict),
           TENTEN_STATUS_UNKNOWN_PIECE, "holder slot 1: piece index 42 is not in the set");
    TentenPlay play;
    expect("play an unknown piece", tenten_play(rules, board, 100, 200, 0, 0, &play), TENTEN_STATUS_UNKNOWN_PIECE,
           "piece index 200");
    TentenGenerator *odd = NULL;
    expect("a generator weighting an unknown piece",
           tenten_generator_parse("(name: \"odd\", weights: {\"Z9\": 3}, check: none)", NULL, &odd),
           TENTEN_STATUS_PARSE, "Z9");

    // Malformed RON, in strings and files.
    expect("malformed generator RON", tenten_generator_parse("(name: \"x\", check: repair(policy: deepest,", NULL, &odd),
           TENTEN_STATUS_PARSE, "<ron string>:1:");
    TentenPieces *pieces = NULL;
    expect("malformed piece set RON", tenten_pieces_parse("not a piece set", &pieces), TENTEN_STATUS_PARSE,
           "<ron string>:1:");
    expect("a band out of range", tenten_generator_parse("(name: \"x\", by_fill: [(up_to: 2.0, scale: {})], check: none)",
                                                         NULL, &odd),
           TENTEN_STATUS_PARSE, "<ron string>");
    expect_true("failed loads make no handle", odd == NULL && pieces == NULL);
    expect("a missing file", tenten_generator_load("no/such/generator.ron", NULL, &odd), TENTEN_STATUS_IO,
           "no/such/generator.ron: cannot read");
    expect("a path that is not UTF-8", tenten_generator_load("gen\xff.ron", NULL, &odd),
           TENTEN_STATUS_INVALID_ARGUMENT, "path is not UTF-8 text (byte 3)");
    expect("an unknown preset", tenten_generator_preset("lucky", NULL, &odd), TENTEN_STATUS_INVALID_ARGUMENT,
           "the presets are random, repair, reject, bag");

    // A move that does not fit leaves the board alone.
    board[0] = 1;
    uint8_t before[100];
    memcpy(before, board, 100);
    expect("play onto a filled cell", tenten_play(rules, board, 100, 0, 0, 0, &play), TENTEN_STATUS_NO_FIT,
           "covers the filled cell (0, 0)");
    expect("play off the board", tenten_play(rules, board, 100, 0, 12, 0, &play), TENTEN_STATUS_NO_FIT,
           "runs off the 10x10 board");
    expect_true("a failed play leaves the board alone", memcmp(before, board, 100) == 0);

    // Freeing NULL does nothing; the host goes on and valid calls work.
    tenten_pieces_free(NULL);
    tenten_generator_free(NULL);
    tenten_rules_free(NULL);
    tenten_dealer_free(NULL);
    expect_true("a valid validate after all that",
                tenten_validate(rules, board, 100, holder, 3, &verdict) == TENTEN_STATUS_OK && verdict.solvable == 1 &&
                    verdict.step_count == 3);
    expect_true("a valid deal after all that",
                tenten_dealer_next(dealer, board, 100, &deal) == TENTEN_STATUS_OK && deal.count == 3 &&
                    deal.index == 0);

    tenten_dealer_free(dealer);
    tenten_rules_free(rules);
    tenten_generator_free(generator);
    printf("%d of %d checks passed\n", checks - failures, checks);
    return failures == 0 ? 0 : 1;
}
