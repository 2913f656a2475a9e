// Plays 200 rounds with the repair generator (the paper's validator and
// changer; or the generator file named as the first argument) and a greedy
// placement, through the tenten C library, printing one line per round and
// the danger of each board a game ends on. Game g is dealt from seed 7 + g - 1;
// when it ends, the game reports how (the rounds it completed, and whether
// the deal that ended it was unfair) so that a generator's adaptive rules read the player.
// The C# and Python examples are the same program; a test holds all three to
// the workbench's engine, line for line.
//
// Build and run from the repository's root (README, "Use the engine in
// your game"):
//   cargo build --release -p tenten-ffi
//   cc -Iinclude examples/c/*.c -Ltarget/release -ltenten_ffi -o target/greedy-c
//   LD_LIBRARY_PATH=target/release target/greedy-c
// With the library elsewhere (TENTEN_LIB names it), link against its folder
// with -L and put that folder on LD_LIBRARY_PATH.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tenten.h"

enum { WIDTH = 10, HEIGHT = 10, CELLS = WIDTH * HEIGHT, HOLDER = 3, ROUNDS = 200 };
static const uint64_t SEED = 7;

/* Stops the program with the library's own message on any failure. */
static void check(TentenStatus status, const char *what) {
    if (status != TENTEN_STATUS_OK) {
        fprintf(stderr, "%s failed (status %d): %s\n", what, (int)status, tenten_last_error());
        exit(1);
    }
}

static int filled(const uint8_t *cells) {
    int n = 0;
    for (int i = 0; i < CELLS; i++) n += cells[i] != 0;
    return n;
}

static const char *id_of(const TentenRules *rules, uint8_t piece) {
    const char *id = NULL;
    check(tenten_rules_piece_id(rules, piece, &id), "tenten_rules_piece_id");
    return id;
}

/*
 * Greedy: the spot that leaves the most empty cells after the lines it
 * clears, ties to more lines, then the first spot row by row. Returns 0
 * when the piece fits nowhere.
 */
static int place_greedy(const TentenRules *rules, uint8_t *cells, uint8_t piece,
                        int *at_x, int *at_y, uint64_t *points) {
    int best_free = -1, best_lines = -1;
    uint8_t trial[CELLS];
    TentenPlay play;
    for (int y = 0; y < HEIGHT; y++) {
        for (int x = 0; x < WIDTH; x++) {
            uint8_t fits = 0;
            check(tenten_fits(rules, cells, CELLS, piece, (uint8_t)x, (uint8_t)y, &fits), "tenten_fits");
            if (!fits) continue;
            memcpy(trial, cells, CELLS);
            check(tenten_play(rules, trial, CELLS, piece, (uint8_t)x, (uint8_t)y, &play), "tenten_play");
            int free_cells = CELLS - filled(trial);
            int lines = (int)(play.rows + play.columns);
            if (free_cells > best_free || (free_cells == best_free && lines > best_lines)) {
                best_free = free_cells;
                best_lines = lines;
                *at_x = x;
                *at_y = y;
            }
        }
    }
    if (best_free < 0) return 0;
    check(tenten_play(rules, cells, CELLS, piece, (uint8_t)*at_x, (uint8_t)*at_y, &play), "tenten_play");
    *points = play.points;
    return 1;
}

int main(int argc, char **argv) {
    const char *file = argc > 1 ? argv[1] : "presets/generators/repair.ron";
    if (tenten_abi_version() != TENTEN_ABI_VERSION) {
        fprintf(stderr, "the library speaks ABI %u, this program %d\n", tenten_abi_version(), TENTEN_ABI_VERSION);
        return 1;
    }
    TentenGenerator *generator = NULL;
    TentenRules *rules = NULL;
    TentenDealer *dealer = NULL;
    check(tenten_generator_load(file, NULL, &generator), "tenten_generator_load");
    check(tenten_rules_new(generator, WIDTH, HEIGHT, HOLDER, &rules), "tenten_rules_new");
    check(tenten_dealer_new(rules, SEED, &dealer), "tenten_dealer_new");

    uint8_t cells[CELLS] = {0}, dealt_on[CELLS];
    uint64_t score = 0;
    int game = 1;
    uint32_t game_rounds = 0;
    for (int round = 1; round <= ROUNDS; round++) {
        TentenDeal deal;
        check(tenten_dealer_next(dealer, cells, CELLS, &deal), "tenten_dealer_next");
        memcpy(dealt_on, cells, CELLS);
        TentenValidation verdict;
        check(tenten_validate(rules, cells, CELLS, deal.pieces, deal.count, &verdict), "tenten_validate");

        char holder[64] = "", moves[128] = "";
        uint64_t points = 0;
        int over = 0;
        for (uint32_t i = 0; i < deal.count; i++) {
            snprintf(holder + strlen(holder), sizeof holder - strlen(holder), "%s%s", i ? "," : "",
                     id_of(rules, deal.pieces[i]));
        }
        for (uint32_t i = 0; i < deal.count && !over; i++) {
            int x = 0, y = 0;
            uint64_t gained = 0;
            if (place_greedy(rules, cells, deal.pieces[i], &x, &y, &gained)) {
                snprintf(moves + strlen(moves), sizeof moves - strlen(moves), "%s%s@%d,%d", i ? ";" : "",
                         id_of(rules, deal.pieces[i]), x, y);
                points += gained;
            } else {
                over = 1;
            }
        }
        score += points;
        if (!over) game_rounds++; /* a round counts once its holder is placed */
        printf("round %d game %d holder=%s solvable=%u placements=%llu moves=%s points=%llu score=%llu filled=%d%s\n",
               round, game, holder, (unsigned)verdict.solvable, (unsigned long long)verdict.placements,
               moves[0] ? moves : "-", (unsigned long long)points, (unsigned long long)score, filled(cells),
               over ? " over" : "");
        if (over) {
            TentenDanger danger;
            check(tenten_danger(rules, cells, CELLS, &danger), "tenten_danger");
            /* Unfair: the holder could not be placed, yet some holder could (the board it was dealt on was not dead). */
            int unfair = 0;
            if (!verdict.solvable && !deal.dead) {
                TentenDanger before;
                check(tenten_danger(rules, dealt_on, CELLS, &before), "tenten_danger");
                unfair = before.killers < before.multisets;
            }
            printf("game %d over: score=%llu danger=%.6f killers=%llu of %llu rounds=%u unfair=%d\n", game,
                   (unsigned long long)score, danger.probability, (unsigned long long)danger.killers,
                   (unsigned long long)danger.multisets, game_rounds, unfair);
            /* The events an adaptive generator reads; the next game starts on its own seed. */
            check(tenten_dealer_game_ended(dealer, game_rounds, (uint8_t)unfair), "tenten_dealer_game_ended");
            check(tenten_dealer_new_game(dealer, SEED + (uint64_t)game), "tenten_dealer_new_game");
            memset(cells, 0, CELLS);
            score = 0;
            game_rounds = 0;
            game++;
        }
    }
    printf("games=%d score=%llu filled=%d\n", game, (unsigned long long)score, filled(cells));

    tenten_dealer_free(dealer);
    tenten_rules_free(rules);
    tenten_generator_free(generator);
    return 0;
}
