// SPDX-License-Identifier: Apache-2.0
package dat.registry;

import static dat.registry.Fixtures.ia;
import static dat.registry.Fixtures.provider;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import dat.spi.DatProvider;
import dat.spi.DatProviderInfo;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Every provider's {@code info()} runs at once: the native libraries behind them (libfabric's own start alone is a
 * third of a second) load side by side, and the registry still lists providers and IAs in discovery order, each
 * call within its own limit.
 */
class ConcurrentDiscoveryTest {

    /** Far above what the tests wait for when the calls do run at once; what each waits before giving up. */
    private static final long MEET_SECONDS = 10;
    private static final Duration BOUND = Duration.ofSeconds(60);

    private final RecordingLogger log = new RecordingLogger();
    /** Released after each test so the threads a hanging provider holds end. */
    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void releaseHungProviders() {
        release.countDown();
    }

    private DatRegistry.Builder builder(DatProvider... providers) {
        return DatRegistry.builder().logger(log).providers(List.of(providers))
                .properties(Map.of(DatRegistry.CALL_TIMEOUT_PROPERTY, String.valueOf(2 * MEET_SECONDS * 1000)));
    }

    /** A provider whose info() returns only once as many info() calls as the barrier has parties are inside it. */
    private static DatProvider meeting(String name, CyclicBarrier barrier) {
        DatProvider provider = mock(DatProvider.class);
        when(provider.name()).thenReturn(name);
        when(provider.info()).thenAnswer(invocation -> {
            // One at a time, the first waits alone and times out: the provider is then unavailable.
            barrier.await(MEET_SECONDS, TimeUnit.SECONDS);
            return DatProviderInfo.available(name, "1.0", List.of(ia(name + "0", name)), List.of());
        });
        return provider;
    }

    @Test
    void theProvidersInfoCallsRunAtOnce() {
        CyclicBarrier barrier = new CyclicBarrier(3);
        DatRegistry registry = assertTimeoutPreemptively(BOUND, () -> builder(meeting("a", barrier),
                provider("plain", "plain0"), meeting("b", barrier), meeting("c", barrier)).build());
        for (ProviderEntry entry : registry.providers()) {
            assertNull(entry.unavailableReason(), () -> entry.name() + ": " + entry.unavailableReason());
        }
        assertEquals(List.of("a0", "plain0", "b0", "c0"), registry.ias().stream().map(IaEntry::name).toList());
    }

    @Test
    void providersKeepDiscoveryOrderWhateverOrderTheirInfoReturnsIn() {
        CountDownLatch lastReturned = new CountDownLatch(1);
        DatProvider first = mock(DatProvider.class);
        when(first.name()).thenReturn("first");
        when(first.info()).thenAnswer(invocation -> {
            lastReturned.await(MEET_SECONDS, TimeUnit.SECONDS);
            return DatProviderInfo.available("first", "1.0", List.of(ia("first0", "first")), List.of());
        });
        DatProvider last = mock(DatProvider.class);
        when(last.name()).thenReturn("last");
        when(last.info()).thenAnswer(invocation -> {
            try {
                return DatProviderInfo.available("last", "1.0", List.of(ia("last0", "last")), List.of());
            } finally {
                lastReturned.countDown();
            }
        });
        DatRegistry registry = assertTimeoutPreemptively(BOUND, () -> builder(first, last).build());
        assertEquals(List.of("first", "last"), registry.providers().stream().map(ProviderEntry::name).toList());
        assertEquals(List.of("first0", "last0"), registry.ias().stream().map(IaEntry::name).toList());
        assertNull(registry.providers().getFirst().unavailableReason(), registry.providers().getFirst()::toString);
    }

    @Test
    void hungInfoCallsCostTheLimitOnceAndEachIsNamed() {
        DatProvider[] hung = new DatProvider[4];
        for (int i = 0; i < hung.length; i++) {
            hung[i] = mock(DatProvider.class);
            when(hung[i].name()).thenReturn("hung" + i);
            when(hung[i].info()).thenAnswer(invocation -> {
                release.await(60, TimeUnit.SECONDS);
                throw new IllegalStateException("released");
            });
        }
        // Four hung calls one after another would take four limits; run at once they take one. The bound says
        // which without timing the build: a 3 s limit, and a 10 s bound that four limits (12 s) exceed.
        DatRegistry registry = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> DatRegistry.builder()
                .logger(log).providers(List.of(hung[0], hung[1], provider("ok", "ok0"), hung[2], hung[3]))
                .properties(Map.of(DatRegistry.CALL_TIMEOUT_PROPERTY, "3000")).build());
        assertEquals(List.of("ok0"), registry.ias().stream().map(IaEntry::name).toList());
        for (int i = 0; i < hung.length; i++) {
            String name = "hung" + i;
            ProviderEntry entry = registry.providers().stream().filter(p -> p.name().equals(name)).findFirst()
                    .orElseThrow();
            assertTrue(entry.unavailableReason().contains("info() did not return within 3000 ms"),
                    entry::unavailableReason);
        }
    }
}
