// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.security.SecureRandom;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * The races of {@link ContextTable}'s lock-free lookups (see its class comment): a data-path lookup against the
 * control path's register, remove and rebuild.
 */
public final class ContextTableStress {

    /** The first tag every state registers; its region is {@code "a"}. */
    static final int K1 = 0x1234_5678;

    private ContextTableStress() {
    }

    /** 1 for region {@code "a"}, 2 for {@code "b"}, 0 for a miss, -1 for anything else. */
    static int code(Object region) {
        if (region == null) {
            return 0;
        }
        return "a".equals(region) ? 1 : "b".equals(region) ? 2 : -1;
    }

    /** A generator that hands out the given tags, then real random ones. */
    static final class Scripted extends SecureRandom {
        private static final long serialVersionUID = 1L;
        private final int[] tags;
        private int next;

        Scripted(int... tags) {
            this.tags = tags.clone();
        }

        @Override
        public int nextInt() {
            return next < tags.length ? tags[next++] : super.nextInt();
        }
    }

    /** {@return a tag other than {@code key} that probes the same slot first in a table of 16} */
    static int sameHome(int key) {
        int other = key + 1;
        while (ContextTable.home(other, 16) != ContextTable.home(key, 16)) {
            other++;
        }
        return other;
    }

    /**
     * Slot reuse: the remove leaves a tombstone and the next register, whose tag probes the same slot first, reuses
     * it. A lookup of the removed tag sees the old entry or a miss, never the new region under the old tag.
     */
    @JCStressTest
    @Description("A lookup racing a remove and a register that reuses the removed entry's slot.")
    @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "Both lookups came before the remove.")
    @Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "The remove came between the lookups.")
    @Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "Both lookups came after the remove.")
    @Outcome(id = "0, 1", expect = FORBIDDEN, desc = "The removed tag resolved again after a miss.")
    @Outcome(expect = FORBIDDEN, desc = "The removed tag resolved to the new region: a torn slot.")
    @State
    public static class SlotReuse {
        final ContextTable table = new ContextTable(new Scripted(K1, sameHome(K1)));

        public SlotReuse() {
            table.register("a");
        }

        @Actor
        public void writer() {
            table.remove(K1);
            table.register("b");
        }

        @Actor
        public void reader(II_Result r) {
            r.r1 = code(table.get(K1));
            r.r2 = code(table.get(K1));
        }
    }

    /**
     * A rebuild: the eighth register into a table of 16 slots moves every entry into a new array, and a lookup still
     * probing the old array follows {@code MOVED} to the new one. A live tag is never missed.
     */
    @JCStressTest
    @Description("A lookup of a live tag racing the register that rebuilds the table.")
    @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "Found both times.")
    @Outcome(expect = FORBIDDEN, desc = "A live tag was missed or resolved to another region during the rebuild.")
    @State
    public static class Rebuild {
        final ContextTable table = new ContextTable(new Scripted(K1));

        public Rebuild() {
            table.register("a");
            for (int i = 0; i < 7; i++) {
                table.register(i);
            }
        }

        @Actor
        public void writer() {
            table.register("x");
        }

        @Actor
        public void reader(II_Result r) {
            r.r1 = code(table.get(K1));
            r.r2 = code(table.get(K1));
        }
    }

    /**
     * A remove right after a rebuild: it changes only the new array, so a lookup still in the old array must not
     * find the entry there once the remove happened; the old array's slots all say {@code MOVED} by then.
     */
    @JCStressTest
    @Description("A lookup racing a rebuild and then the remove of the tag it looks up.")
    @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "Both lookups came before the remove.")
    @Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "The remove came between the lookups.")
    @Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "Both lookups came after the remove.")
    @Outcome(expect = FORBIDDEN, desc = "The tag resolved again after a miss, or to another region.")
    @State
    public static class RemoveAfterRebuild {
        final ContextTable table = new ContextTable(new Scripted(K1));

        public RemoveAfterRebuild() {
            table.register("a");
            for (int i = 0; i < 7; i++) {
                table.register(i);
            }
        }

        @Actor
        public void writer() {
            table.register("x");
            table.remove(K1);
        }

        @Actor
        public void reader(II_Result r) {
            r.r1 = code(table.get(K1));
            r.r2 = code(table.get(K1));
        }
    }
}
