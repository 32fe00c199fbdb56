// SPDX-License-Identifier: Apache-2.0
package dat.tck;

import dat.api.DatDtoStatus;
import dat.api.DatEp;
import dat.api.DatEvd;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatException;
import dat.api.DatIa;
import dat.api.DatIaAttr;
import dat.api.DatProviderAttr;
import dat.api.DatReturn;
import dat.api.Iov;
import dat.tck.Breaker.Answer;
import dat.tck.Breaker.Call;
import dat.tck.Breaker.Fault;
import java.lang.foreign.Arena;
import java.util.IdentityHashMap;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * Building blocks of the broken providers: each returns a fresh {@link Fault} that bends one kind of call the way
 * a provider mistake would show through the API.
 */
final class Faults {

    private Faults() {
    }

    /** A data-path call answers {@code to} where the provider answered {@code from}. */
    static Fault statusSwap(Class<?> type, String method, int from, int to) {
        return statusSwapIf(type, method, from, to, call -> true);
    }

    /** As {@link #statusSwap}, only for calls {@code when} accepts. */
    static Fault statusSwapIf(Class<?> type, String method, int from, int to, Predicate<Call> when) {
        return new Fault() {
            @Override
            public Object after(Call call, Object result) {
                return call.is(type, method) && (Integer) result == from && when.test(call) ? to : result;
            }
        };
    }

    /** Calls {@code when} accepts are answered with {@code value}, without reaching the provider. */
    static Fault answer(Class<?> type, String method, Predicate<Call> when, Object value) {
        return new Fault() {
            @Override
            public Object[] before(Call call) {
                if (call.is(type, method) && when.test(call)) {
                    throw new Answer(value);
                }
                return call.args();
            }
        };
    }

    /** A control-path call throws {@code to} where the provider threw {@code from}. */
    static Fault thrownSwap(Class<?> type, String method, DatReturn from, DatReturn to) {
        return new Fault() {
            @Override
            public Object thrown(Call call, RuntimeException thrown) {
                if (call.is(type, method) && thrown instanceof DatException d && d.type() == from) {
                    throw new DatException(to, call.method() + ": " + d.getMessage());
                }
                throw thrown;
            }
        };
    }

    /** A control-path refusal with {@code refused} is swallowed: the call returns {@code null} as if it worked. */
    static Fault swallow(Class<?> type, String method, DatReturn refused) {
        return new Fault() {
            @Override
            public Object thrown(Call call, RuntimeException thrown) {
                if (call.is(type, method) && thrown instanceof DatException d && d.type() == refused) {
                    return null;
                }
                throw thrown;
            }
        };
    }

    /** The arguments of {@code type.method} are rewritten before the provider sees them. */
    static Fault rewriteArgs(Class<?> type, String method, UnaryOperator<Object[]> rewrite) {
        return new Fault() {
            @Override
            public Object[] before(Call call) {
                return call.is(type, method) ? rewrite.apply(call.args().clone()) : call.args();
            }
        };
    }

    /** What {@code type.method} returns is rewritten. */
    static Fault rewriteResult(Class<?> type, String method, UnaryOperator<Object> rewrite) {
        return new Fault() {
            @Override
            public Object after(Call call, Object result) {
                return call.is(type, method) ? rewrite.apply(result) : result;
            }
        };
    }

    /** The provider attributes lie. */
    static Fault providerAttr(UnaryOperator<DatProviderAttr.Builder> lie) {
        return rewriteResult(DatIa.class, "providerAttr", r -> lie.apply(((DatProviderAttr) r).toBuilder()).build());
    }

    /** The IA attributes ({@code dat_ia_query}) lie. */
    static Fault iaAttr(UnaryOperator<DatIaAttr.Builder> lie) {
        return rewriteResult(DatIa.class, "query", r -> lie.apply(((DatIaAttr) r).toBuilder()).build());
    }

    /** Events {@code match} accepts are changed by {@code rewrite} as they are dequeued. */
    static Fault rewriteEvents(Predicate<DatEvent> match, Consumer<DatEvent> rewrite) {
        return new Fault() {
            @Override
            public Object after(Call call, Object result) {
                if (call.is(DatEvd.class, "dequeue") && (Integer) result == DatReturn.DAT_SUCCESS) {
                    DatEvent e = (DatEvent) call.args()[0];
                    if (match.test(e)) {
                        rewrite.accept(e);
                    }
                }
                return result;
            }
        };
    }

    /** Events {@code match} accepts are lost: dequeue skips them. */
    static Fault dropEvents(Predicate<DatEvent> match) {
        return new Fault() {
            @Override
            public Object after(Call call, Object result) {
                if (!call.is(DatEvd.class, "dequeue")) {
                    return result;
                }
                DatEvent e = (DatEvent) call.args()[0];
                int rc = (Integer) result;
                while (rc == DatReturn.DAT_SUCCESS && match.test(e)) {
                    rc = ((DatEvd) call.target()).dequeue(e);
                }
                return rc;
            }
        };
    }

    /** Rewrites connection events of type {@code from} into {@code to} as they are dequeued. */
    static Fault connectionEventSwap(DatEventType from, DatEventType to) {
        return rewriteEvents(e -> e.type() == from, e -> e.setConnectionEvent(to, e.evd(), e.ep(), e.privateData()));
    }

    /** Rewrites DTO completions {@code match} accepts with {@code status} and {@code length}. */
    static Fault dtoRewrite(Predicate<DatEvent> match, DatDtoStatus status, long length) {
        return rewriteEvents(e -> e.type() == DatEventType.DTO_COMPLETION && match.test(e),
                e -> e.setDtoCompletion(e.evd(), e.ep(), e.userCookie(), status, length));
    }

    /** Adds {@code delta} to the remote target address of an RDMA read or write. */
    static Fault remoteAddressShift(String method, long delta) {
        return rewriteArgs(DatEp.class, method, args -> {
            args[4] = (Long) args[4] + delta;
            return args;
        });
    }

    /** A post's IOV is gathered or scattered backwards: the first {@code n} triplets reversed. */
    static Fault reversedIov(Class<?> type, String method) {
        return rewriteArgs(type, method, args -> {
            int n = (Integer) args[0];
            Iov iov = (Iov) args[1];
            if (n < 2 || iov == null) {
                return args;
            }
            Iov reversed = Iov.allocate(Arena.global(), n);
            for (int i = 0; i < n; i++) {
                int from = n - 1 - i;
                reversed.set(i, iov.lmrContext(from), iov.virtualAddress(from), iov.segmentLength(from));
            }
            args[1] = reversed;
            return args;
        });
    }

    /**
     * A post's segments that start on a cache line (64 bytes) are read or filled from {@code unit} bytes lower: a
     * provider whose path for aligned buffers rounds the address down with a wrong mask.
     */
    static Fault alignedAddressRoundedDown(Class<?> type, String method, long unit) {
        return rewriteArgs(type, method, args -> {
            int n = (Integer) args[0];
            Iov iov = (Iov) args[1];
            if (n == 0 || iov == null) {
                return args;
            }
            Iov moved = copyIov(iov, n);
            for (int i = 0; i < n; i++) {
                long address = moved.virtualAddress(i);
                if (address % 64 == 0) {
                    moved.set(i, moved.lmrContext(i), address - unit, moved.segmentLength(i));
                }
            }
            args[1] = moved;
            return args;
        });
    }

    /** Copies the first {@code n} triplets of an IOV the consumer may reuse once the post returns. */
    static Iov copyIov(Iov iov, int n) {
        if (iov == null || n == 0) {
            return iov;
        }
        Iov copy = Iov.allocate(Arena.global(), n);
        for (int i = 0; i < n; i++) {
            copy.set(i, iov.lmrContext(i), iov.virtualAddress(i), iov.segmentLength(i));
        }
        return copy;
    }

    /** Events {@code match} accepts come out of each EVD in swapped pairs. */
    static Fault swappedPairs(Predicate<DatEvent> match) {
        return new Fault() {
            private final IdentityHashMap<Object, DatEvent> held = new IdentityHashMap<>();

            @Override
            public synchronized Object after(Call call, Object result) {
                if (!call.is(DatEvd.class, "dequeue")) {
                    return result;
                }
                DatEvd evd = (DatEvd) call.target();
                DatEvent out = (DatEvent) call.args()[0];
                DatEvent first = held.remove(evd);
                if (first != null) {
                    if ((Integer) result == DatReturn.DAT_SUCCESS) {
                        held.put(evd, new DatEvent().copyFrom(out));
                    }
                    out.copyFrom(first);
                    return DatReturn.DAT_SUCCESS;
                }
                if ((Integer) result == DatReturn.DAT_SUCCESS && match.test(out)) {
                    DatEvent second = new DatEvent();
                    if (evd.dequeue(second) == DatReturn.DAT_SUCCESS) {
                        held.put(evd, new DatEvent().copyFrom(out));
                        out.copyFrom(second);
                    }
                }
                return result;
            }
        };
    }

    /** Dequeues and discards every event queued on {@code evd}. */
    static void drain(DatEvd evd) {
        DatEvent lost = new DatEvent();
        while (evd.dequeue(lost) == DatReturn.DAT_SUCCESS) {
            // Dropped: the dequeue was the point.
        }
    }

    /** Whether {@code ep} is an EP on an SRQ. */
    static boolean onSrq(Object ep) {
        return ep instanceof DatEp e && e.query().srq() != null;
    }
}
