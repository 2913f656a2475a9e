// Plays 200 rounds with the repair generator (or the generator file named as
// the first argument) and a greedy placement through the tenten library,
// printing one line per round; game g is dealt from seed 7 + g - 1 and reports
// how it ended, for a generator's adaptive rules: the same program as
// examples/c/greedy.c and examples/python/greedy.py.
// Run from the repository's root: examples/csharp/run.sh [GENERATOR.ron]
using System;
using System.Globalization;
using System.Text;
using Tenten;

static class Greedy
{
    const int Width = 10, Height = 10, Cells = Width * Height, Holder = 3, Rounds = 200;
    const ulong Seed = 7;
    static readonly UIntPtr CellCount = new UIntPtr(Cells);

    static int Filled(byte[] cells)
    {
        int n = 0;
        foreach (byte c in cells) n += c != 0 ? 1 : 0;
        return n;
    }

    static string IdOf(IntPtr rules, byte piece)
    {
        IntPtr id;
        Native.Check(Native.tenten_rules_piece_id(rules, piece, out id), "tenten_rules_piece_id");
        return System.Runtime.InteropServices.Marshal.PtrToStringAnsi(id);
    }

    // The spot that leaves the most empty cells after the lines it clears,
    // ties to more lines, then the first spot row by row.
    static bool PlaceGreedy(IntPtr rules, byte[] cells, byte piece, out int atX, out int atY, out ulong points)
    {
        int bestFree = -1, bestLines = -1;
        atX = atY = 0;
        points = 0;
        Play play;
        for (int y = 0; y < Height; y++)
        {
            for (int x = 0; x < Width; x++)
            {
                byte fits;
                Native.Check(Native.tenten_fits(rules, cells, CellCount, piece, (byte)x, (byte)y, out fits), "tenten_fits");
                if (fits == 0) continue;
                byte[] trial = (byte[])cells.Clone();
                Native.Check(Native.tenten_play(rules, trial, CellCount, piece, (byte)x, (byte)y, out play), "tenten_play");
                int free = Cells - Filled(trial);
                int lines = (int)(play.Rows + play.Columns);
                if (free > bestFree || (free == bestFree && lines > bestLines))
                {
                    bestFree = free;
                    bestLines = lines;
                    atX = x;
                    atY = y;
                }
            }
        }
        if (bestFree < 0) return false;
        Native.Check(Native.tenten_play(rules, cells, CellCount, piece, (byte)atX, (byte)atY, out play), "tenten_play");
        points = play.Points;
        return true;
    }

    static int Main(string[] args)
    {
        string file = args.Length > 0 ? args[0] : "presets/generators/repair.ron";
        if (Native.tenten_abi_version() != Native.AbiVersion)
        {
            Console.Error.WriteLine("the library speaks ABI " + Native.tenten_abi_version() + ", this program " + Native.AbiVersion);
            return 1;
        }
        IntPtr generator, rules, dealer;
        Native.Check(Native.tenten_generator_load(file, IntPtr.Zero, out generator), "tenten_generator_load");
        Native.Check(Native.tenten_rules_new(generator, Width, Height, Holder, out rules), "tenten_rules_new");
        Native.Check(Native.tenten_dealer_new(rules, Seed, out dealer), "tenten_dealer_new");
        try
        {
            var cells = new byte[Cells];
            ulong score = 0;
            int game = 1;
            uint gameRounds = 0;
            var inv = CultureInfo.InvariantCulture;
            var stdout = Console.Out;
            for (int round = 1; round <= Rounds; round++)
            {
                Deal deal;
                Native.Check(Native.tenten_dealer_next(dealer, cells, CellCount, out deal), "tenten_dealer_next");
                var holder = new byte[deal.Count];
                Array.Copy(deal.Pieces, holder, (int)deal.Count);
                var dealtOn = (byte[])cells.Clone();
                Validation verdict;
                Native.Check(Native.tenten_validate(rules, cells, CellCount, holder, new UIntPtr(deal.Count), out verdict), "tenten_validate");

                var ids = new string[holder.Length];
                for (int i = 0; i < holder.Length; i++) ids[i] = IdOf(rules, holder[i]);
                var moves = new StringBuilder();
                ulong points = 0;
                bool over = false;
                for (int i = 0; i < holder.Length && !over; i++)
                {
                    int x, y;
                    ulong gained;
                    if (PlaceGreedy(rules, cells, holder[i], out x, out y, out gained))
                    {
                        moves.Append(i > 0 ? ";" : "").Append(ids[i]).Append('@').Append(x.ToString(inv)).Append(',').Append(y.ToString(inv));
                        points += gained;
                    }
                    else
                    {
                        over = true;
                    }
                }
                score += points;
                if (!over) gameRounds++; // a round counts once its holder is placed
                stdout.Write(string.Format(inv,
                    "round {0} game {1} holder={2} solvable={3} placements={4} moves={5} points={6} score={7} filled={8}{9}\n",
                    round, game, string.Join(",", ids), verdict.Solvable, verdict.Placements,
                    moves.Length > 0 ? moves.ToString() : "-", points, score, Filled(cells), over ? " over" : ""));
                if (over)
                {
                    Danger danger;
                    Native.Check(Native.tenten_danger(rules, cells, CellCount, out danger), "tenten_danger");
                    // Unfair: the holder could not be placed, yet some holder could (the board was not dead).
                    bool unfair = false;
                    if (verdict.Solvable == 0 && deal.Dead == 0)
                    {
                        Danger before;
                        Native.Check(Native.tenten_danger(rules, dealtOn, CellCount, out before), "tenten_danger");
                        unfair = before.Killers < before.Multisets;
                    }
                    stdout.Write(string.Format(inv, "game {0} over: score={1} danger={2} killers={3} of {4} rounds={5} unfair={6}\n",
                        game, score, danger.Probability.ToString("F6", inv), danger.Killers, danger.Multisets,
                        gameRounds, unfair ? 1 : 0));
                    // The events an adaptive generator reads; the next game starts on its own seed.
                    Native.Check(Native.tenten_dealer_game_ended(dealer, gameRounds, (byte)(unfair ? 1 : 0)), "tenten_dealer_game_ended");
                    Native.Check(Native.tenten_dealer_new_game(dealer, Seed + (ulong)game), "tenten_dealer_new_game");
                    Array.Clear(cells, 0, Cells);
                    score = 0;
                    gameRounds = 0;
                    game++;
                }
            }
            stdout.Write(string.Format(inv, "games={0} score={1} filled={2}\n", game, score, Filled(cells)));
            return 0;
        }
        finally
        {
            Native.tenten_dealer_free(dealer);
            Native.tenten_rules_free(rules);
            Native.tenten_generator_free(generator);
        }
    }
}
