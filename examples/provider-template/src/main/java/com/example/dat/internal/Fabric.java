// SPDX-License-Identifier: Apache-2.0
package com.example.dat.internal;

import dat.api.DatHandle;
import java.net.InetAddress;
import java.security.SecureRandom;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What the example's "wire" is: one lock over every object of the provider in this JVM, the listening service
 * points by connection qualifier, and the registered memory by context. A hardware provider has none of this:
 * its HCA routes connections and checks memory keys; this class stands in for that.
 *
 * <p>One lock makes every call atomic against every other, which is why the provider may claim
 * {@code is_thread_safe}; {@link #CHANGED} wakes {@code dat_evd_wait} callers, which wait without holding it.
 */
final class Fabric {

    /** Held by every call that reads or changes provider state. */
    static final ReentrantLock LOCK = new ReentrantLock();
    /** Signalled when an event is queued or an EVD becomes unwaitable. */
    static final Condition CHANGED = LOCK.newCondition();
    /** The one address of every example IA: connections stay in this JVM. */
    static final InetAddress ADDRESS = InetAddress.getLoopbackAddress();

    /** PSPs and RSPs by connection qualifier, over all example IAs. */
    private static final Map<Long, Listener> LISTENERS = new HashMap<>();
    /** Live LMRs by context (lmr_context and rmr_context are the same number). */
    private static final Map<Integer, ExampleLmr> MEMORY = new HashMap<>();
    /** Contexts are random so that a peer that saw some cannot guess others. */
    private static final SecureRandom RANDOM = new SecureRandom();
    /** Where dat_psp_create_any starts looking for a free qualifier. */
    private static long nextAnyQual = 0x1_0000L + RANDOM.nextInt(1 << 16);

    /** Fires connection timeouts; a daemon so it never keeps a JVM alive. */
    static final ScheduledExecutorService TIMER = timer();

    private Fabric() {
    }

    /** A PSP or an RSP: where connection requests for one qualifier go. */
    interface Listener {
        /** {@return the IA listening} */
        ExampleIa owner();

        /** {@return the handle the request event names as {@code sp_handle}} */
        DatHandle handle();

        /** {@return the EVD the request events go to} */
        ExampleEvd crEvd();

        /** {@return the EP an RSP reserved, or {@code null} for a PSP} */
        ExampleEp reservedEp();

        /** {@return the connection qualifier it listens on} */
        long qualifier();
    }

    static Listener listener(long connQual) {
        return LISTENERS.get(connQual);
    }

    /** {@return whether the qualifier was free and is now the listener's} */
    static boolean listen(long connQual, Listener listener) {
        return LISTENERS.putIfAbsent(connQual, listener) == null;
    }

    static void unlisten(long connQual, Listener listener) {
        LISTENERS.remove(connQual, listener);
    }

    /** {@return a qualifier no listener holds} */
    static long freeQualifier() {
        while (LISTENERS.containsKey(nextAnyQual)) {
            nextAnyQual++;
        }
        return nextAnyQual++;
    }

    /** {@return a new context for the LMR, registered until {@link #unregister}} */
    static int register(ExampleLmr lmr) {
        int context;
        do {
            context = RANDOM.nextInt();
        } while (context == 0 || MEMORY.containsKey(context));
        MEMORY.put(context, lmr);
        return context;
    }

    static void unregister(int context) {
        MEMORY.remove(context);
    }

    /** {@return the live LMR of a context, or {@code null}} */
    static ExampleLmr memory(int context) {
        return MEMORY.get(context);
    }

    private static ScheduledExecutorService timer() {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "example-dat-timer");
            t.setDaemon(true);
            return t;
        });
        timer.setRemoveOnCancelPolicy(true);
        return timer;
    }
}
