// Numbers a caller types cannot take the host down: a generator with
// weights of four billion and a bag check (which once built one entry per
// unit of weight and aborted the host) returns a status, under a memory
// limit the test sets with ulimit -v. Each case prints "case STATUS".
#include <stdio.h>

#include "tenten.h"

static void try_parse(const char *name, const char *ron) {
    TentenGenerator *generator = NULL;
    TentenStatus status = tenten_generator_parse(ron, NULL, &generator);
    if (status == TENTEN_STATUS_OK) {
        // Accepted: it must deal within the limit too.
        TentenRules *rules = NULL;
        TentenDealer *dealer = NULL;
        uint8_t board[100] = {0};
        TentenDeal deal;
        if (tenten_rules_new(generator, 10, 10, 3, &rules) == TENTEN_STATUS_OK &&
            tenten_dealer_new(rules, 7, &dealer) == TENTEN_STATUS_OK) {
            status = tenten_dealer_next(dealer, board, 100, &deal);
        }
        tenten_dealer_free(dealer);
        tenten_rules_free(rules);
        tenten_generator_free(generator);
    }
    printf("%s %d %s\n", name, (int)status, status == TENTEN_STATUS_OK ? "" : tenten_last_error());
}

int main(void) {
    try_parse("bag", "(name: \"b\", weights: {\"dot\": 4000000000, \"sq2\": 4000000000}, check: bag)");
    try_parse("big-scale", "(name: \"s\", by_fill: [(up_to: 1.0, scale: {\"dot\": 1e300})], check: none)");
    try_parse("redraws", "(name: \"r\", check: reject(redraws: 4000000000))");
    try_parse("fine", "(name: \"f\", weights: {\"dot\": 1000}, check: bag)");
    return 0;
}
