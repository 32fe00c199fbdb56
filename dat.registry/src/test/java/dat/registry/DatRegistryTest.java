// SPDX-License-Identifier: Apache-2.0
package dat.registry;

import static dat.registry.Fixtures.ia;
import static dat.registry.Fixtures.provider;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import dat.api.DatException;
import dat.api.DatIa;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import dat.spi.DatProvider;
import dat.spi.DatProviderInfo;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DatRegistryTest {

    private final RecordingLogger log = new RecordingLogger();

    private DatRegistry.Builder builder(DatProvider... providers) {
        return DatRegistry.builder().logger(log).providers(List.of(providers));
    }

    private static List<String> names(DatRegistry registry) {
        return registry.providers().stream().map(ProviderEntry::name).toList();
    }

    private static ProviderEntry entry(DatRegistry registry, String name) {
        return registry.providers().stream().filter(p -> p.name().equals(name)).findFirst().orElseThrow(
                () -> new AssertionError(name + " not in " + registry.providers()));
    }

    private static List<String> iaNames(DatRegistry registry) {
        return registry.ias().stream().map(IaEntry::name).toList();
    }

    @Nested
    class Ordering {

        @Test
        void withoutAListProvidersAndIasKeepDiscoveryOrder() {
            DatRegistry registry = builder(provider("b", "b0", "b1"), provider("a", "a0")).build();
            assertEquals(List.of("b", "a"), names(registry));
            assertEquals(List.of("b0", "b1", "a0"), iaNames(registry));
            assertTrue(registry.providers().stream().allMatch(p -> p.available()
                    && p.source() == DiscoverySource.EXPLICIT));
            assertEquals(List.of(), log.problems());
        }

        @Test
        void listedProvidersComeFirstInListOrderAndTheOthersAreNotAsked() {
            DatProvider a = provider("a", "a0");
            DatProvider b = provider("b", "b0");
            DatProvider c = provider("c", "c0");
            DatRegistry registry = builder(a, b, c).properties(Map.of("dat.providers", "c, a")).build();
            assertEquals(List.of("c", "a", "b"), names(registry));
            assertEquals(List.of("c0", "a0"), iaNames(registry));
            assertEquals(DiscoverySource.PROPERTY, entry(registry, "c").source());
            ProviderEntry left = entry(registry, "b");
            assertFalse(left.available());
            assertEquals("not listed in dat.providers=c, a", left.unavailableReason());
            assertEquals(DiscoverySource.EXPLICIT, left.source());
            verify(b, never()).info();
        }

        @Test
        void onlyExclusionsMeanAllButThose() {
            DatProvider verbs = provider("verbs", "v0");
            DatRegistry registry = builder(provider("a", "a0"), verbs, provider("c", "c0"))
                    .properties(Map.of("dat.providers", "^verbs")).build();
            assertEquals(List.of("a", "verbs", "c"), names(registry));
            assertEquals("excluded by dat.providers=^verbs", entry(registry, "verbs").unavailableReason());
            assertEquals(List.of("a0", "c0"), iaNames(registry));
            verify(verbs, never()).info();
        }

        @Test
        void exclusionWinsOverInclusion() {
            DatRegistry registry = builder(provider("a", "a0"), provider("b", "b0"))
                    .properties(Map.of("dat.providers", "a b ^a")).build();
            assertEquals(List.of("b", "a"), names(registry));
            assertEquals(List.of("b0"), iaNames(registry));
        }

        @Test
        void environmentVariableIsReadWhenThePropertyIsNotSet() {
            DatRegistry fromEnv = builder(provider("a", "a0"), provider("b", "b0"))
                    .environment(Map.of("DAT_PROVIDERS", "^a")).build();
            assertEquals("excluded by DAT_PROVIDERS=^a", entry(fromEnv, "a").unavailableReason());
            DatRegistry propertyWins = builder(provider("a", "a0"), provider("b", "b0"))
                    .environment(Map.of("DAT_PROVIDERS", "^a")).properties(Map.of("dat.providers", "^b")).build();
            assertTrue(entry(propertyWins, "a").available());
            assertFalse(entry(propertyWins, "b").available());
            assertEquals("^b", propertyWins.settings().getFirst().currentValue());
        }

        @Test
        void onlyProviderAsksThatOneWithinWhatTheListSelects() {
            DatProvider a = provider("a", "a0");
            DatProvider b = provider("b", "b0");
            DatProvider c = provider("c", "c0");
            DatRegistry registry = builder(a, b, c).onlyProvider("b").build();
            assertEquals(List.of("a", "b", "c"), names(registry));
            assertEquals(List.of("b0"), iaNames(registry));
            assertEquals(DiscoverySource.EXPLICIT, entry(registry, "b").source());
            assertEquals("not asked: only provider b was asked for its IAs", entry(registry, "a").unavailableReason());
            verify(a, never()).info();
            verify(c, never()).info();
            assertEquals(List.of(), log.problems());

            DatRegistry excluded = builder(provider("a", "a0"), provider("b", "b0"))
                    .properties(Map.of("dat.providers", "^b")).onlyProvider("b").build();
            assertEquals(List.of(), iaNames(excluded));
            IaResolutionException refused = assertThrows(IaResolutionException.class,
                    () -> excluded.resolve("b", null));
            assertTrue(refused.reason().contains("excluded by dat.providers=^b"), refused.reason());

            DatRegistry unlisted = builder(provider("a", "a0"), provider("b", "b0"))
                    .properties(Map.of("dat.providers", "a")).onlyProvider("b").build();
            assertEquals("not listed in dat.providers=a", entry(unlisted, "b").unavailableReason());
            assertEquals(List.of(), iaNames(unlisted));

            DatRegistry unknown = builder(provider("a", "a0"), provider("b", "b0")).onlyProvider("nosuch").build();
            assertEquals(List.of("a0", "b0"), iaNames(unknown), "a name no provider has asks them all");
        }

        @Test
        void listedButMissingIsReportedAsNotFoundWithASuggestion() {
            DatRegistry registry = builder(provider("loopback", "loopback0"))
                    .properties(Map.of("dat.providers", "loopbak,loopback")).build();
            assertEquals(List.of("loopbak", "loopback"), names(registry));
            ProviderEntry typo = entry(registry, "loopbak");
            assertEquals(DiscoverySource.PROPERTY, typo.source());
            assertNull(typo.className());
            assertTrue(typo.unavailableReason().startsWith("not found"), typo.unavailableReason());
            assertTrue(typo.unavailableReason().endsWith("did you mean loopback?"), typo.unavailableReason());
            assertEquals(1, log.find(Level.WARNING, "loopbak").size(), log.entries()::toString);
        }
    }

    @Nested
    class Failures {

        @Test
        void throwingNameOrInfoOrNullAnswersDoNotHideTheOthers() {
            DatProvider badName = mock(DatProvider.class);
            when(badName.name()).thenThrow(new IllegalStateException("no name today"));
            DatProvider nullName = mock(DatProvider.class);
            DatProvider badInfo = mock(DatProvider.class);
            when(badInfo.name()).thenReturn("bad-info");
            when(badInfo.info()).thenThrow(new UnsatisfiedLinkError("libibverbs.so.1"));
            DatProvider nullInfo = mock(DatProvider.class);
            when(nullInfo.name()).thenReturn("null-info");

            DatRegistry registry = builder(badName, provider("a", "a0"), nullName, badInfo, nullInfo,
                    provider("z", "z0")).build();

            assertEquals(List.of("a0", "z0"), iaNames(registry));
            assertEquals(6, registry.providers().size(), registry.providers()::toString);
            String badNameClass = badName.getClass().getName();
            assertEquals("name() threw java.lang.IllegalStateException: no name today",
                    entry(registry, badNameClass).unavailableReason());
            assertEquals(badNameClass, entry(registry, badNameClass).className());
            assertEquals("name() returned null", registry.providers().get(2).unavailableReason());
            assertEquals("info() threw java.lang.UnsatisfiedLinkError: libibverbs.so.1",
                    entry(registry, "bad-info").unavailableReason());
            assertEquals("info() returned null", entry(registry, "null-info").unavailableReason());

            assertEquals(4, log.problems().size(), log.entries()::toString);
            assertTrue(log.problems().stream().allMatch(e -> e.level() == Level.WARNING));
            assertEquals(1, log.find(Level.WARNING, "bad-info").size());
            assertEquals(null, log.find(Level.WARNING, "bad-info").getFirst().thrown(), "one line, no trace");
            assertTrue(log.find(Level.DEBUG, "bad-info").stream().anyMatch(e -> e.thrown() instanceof
                    UnsatisfiedLinkError), "the trace at DEBUG");
        }

        @Test
        void anErrorThrownByAProviderIsItsReasonNotTheEndOfDiscovery() {
            DatProvider broken = mock(DatProvider.class);
            when(broken.name()).thenThrow(new OutOfMemoryError("simulated"));
            DatRegistry registry = builder(broken, provider("a", "a0")).build();
            assertEquals(List.of("a0"), iaNames(registry));
            assertEquals("name() threw java.lang.OutOfMemoryError: simulated",
                    registry.providers().getFirst().unavailableReason());
        }

        @Test
        void serviceLoaderErrorsAreListedAndDiscoveryGoesOn() {
            DatProvider good = provider("good", "good0");
            ServiceConfigurationError missing = new ServiceConfigurationError(
                    "dat.spi.DatProvider: Provider com.example.Missing not found");
            ServiceConfigurationError constructor = new ServiceConfigurationError(
                    "dat.spi.DatProvider: Provider com.example.Throws could not be instantiated",
                    new IllegalStateException("device busy"));
            List<Object> sequence = List.of(missing, failingProvider(constructor), given(good));
            DatRegistry registry = DatRegistry.builder().logger(log)
                    .discover(() -> scripted(sequence), DiscoverySource.SERVICE_LOADER).build();

            assertEquals(List.of("com.example.Missing", "com.example.Throws", "good"), names(registry));
            assertEquals(List.of("good0"), iaNames(registry));
            ProviderEntry ctor = entry(registry, "com.example.Throws");
            assertTrue(ctor.unavailableReason().contains("could not be instantiated: caused by"
                    + " java.lang.IllegalStateException: device busy"), ctor.unavailableReason());
            assertEquals(DiscoverySource.SERVICE_LOADER, ctor.source());
            assertEquals(1, log.find(Level.WARNING, "com.example.Missing").size());
            assertEquals(1, log.find(Level.WARNING, "com.example.Throws").size());
        }

        @Test
        void aLoaderThatFailsForeverIsAbandoned() {
            Iterator<ServiceLoader.Provider<DatProvider>> forever = new Iterator<>() {
                @Override
                public boolean hasNext() {
                    return true;
                }

                @Override
                public ServiceLoader.Provider<DatProvider> next() {
                    throw new ServiceConfigurationError("dat.spi.DatProvider: broken");
                }
            };
            DatRegistry registry = DatRegistry.builder().logger(log)
                    .discover(() -> forever, DiscoverySource.SERVICE_LOADER).build();
            assertEquals(Discovery.MAX_CONSECUTIVE_LOOKUP_FAILURES, registry.providers().size());
            assertEquals("(unknown provider)", registry.providers().getFirst().name());
            assertEquals(1, log.find(Level.WARNING, "gave up").size());
        }

        @Test
        void unavailableProviderIsListedAndLoggedOnceAtInfo() {
            DatProvider verbs = mock(DatProvider.class);
            when(verbs.name()).thenReturn("verbs");
            when(verbs.info()).thenReturn(DatProviderInfo.unavailable("verbs", "1.0",
                    "run with --enable-native-access=dat.provider.verbs", List.of()));
            DatRegistry registry = builder(verbs, provider("a", "a0")).build();
            ProviderEntry entry = entry(registry, "verbs");
            assertFalse(entry.available());
            assertEquals("run with --enable-native-access=dat.provider.verbs", entry.unavailableReason());
            assertEquals("verbs", entry.info().name());
            registry.providers();
            registry.ias();
            registry.select("srq_supported || !srq_supported");
            assertFalse(registry.toString().isEmpty());
            assertEquals(1, log.problems().size(), log.entries()::toString);
            assertEquals(1, log.find(Level.INFO, "native-access").size());
        }

        @Test
        void duplicateProviderNameFirstWins() {
            DatProvider first = provider("dup", "d0");
            DatProvider second = provider("dup", "d1");
            DatRegistry registry = builder(first, second).build();
            assertEquals(List.of("d0"), iaNames(registry));
            ProviderEntry loser = registry.providers().get(1);
            assertEquals("duplicate provider name dup: already provided by class " + first.getClass().getName(),
                    loser.unavailableReason());
            assertEquals(1, log.find(Level.WARNING, "duplicate provider name dup").size());
            verify(second, never()).info();
        }

        @Test
        void duplicateIaNameAcrossProvidersFirstWins() {
            DatRegistry registry = builder(provider("a", "x0"), provider("b", "x0")).build();
            assertEquals(2, registry.ias().size());
            assertTrue(registry.ias().get(0).available());
            IaEntry second = registry.ias().get(1);
            assertEquals("b", second.providerName());
            assertEquals("duplicate IA name x0: already offered by provider a (explicit)", second.unavailableReason());
            assertEquals(1, log.find(Level.WARNING, "IA x0 ignored").size());
        }

        private static ServiceLoader.Provider<DatProvider> failingProvider(ServiceConfigurationError error) {
            return new ServiceLoader.Provider<>() {
                @Override
                public Class<? extends DatProvider> type() {
                    throw error;
                }

                @Override
                public DatProvider get() {
                    throw error;
                }
            };
        }

        private static ServiceLoader.Provider<DatProvider> given(DatProvider provider) {
            return new ServiceLoader.Provider<>() {
                @Override
                public Class<? extends DatProvider> type() {
                    return provider.getClass();
                }

                @Override
                public DatProvider get() {
                    return provider;
                }
            };
        }

        /** An iterator that throws the errors in the sequence from next() and hands out the providers. */
        @SuppressWarnings("unchecked")
        private static Iterator<ServiceLoader.Provider<DatProvider>> scripted(List<Object> sequence) {
            Iterator<Object> it = new ArrayList<>(sequence).iterator();
            return new Iterator<>() {
                @Override
                public boolean hasNext() {
                    return it.hasNext();
                }

                @Override
                public ServiceLoader.Provider<DatProvider> next() {
                    if (!it.hasNext()) {
                        throw new NoSuchElementException();
                    }
                    Object next = it.next();
                    if (next instanceof ServiceConfigurationError e) {
                        throw e;
                    }
                    return (ServiceLoader.Provider<DatProvider>) next;
                }
            };
        }
    }

    @Nested
    class Open {

        @Test
        void opensThroughTheProviderWithDefaultOrGivenQueueLength() {
            DatProvider a = provider("a", "a0");
            DatIa ia = mock(DatIa.class);
            when(a.open(anyString(), anyString(), anyInt())).thenReturn(ia);
            DatRegistry registry = builder(a).build();
            assertSame(ia, registry.open("a0"));
            verify(a).open("a0", "", DatRegistry.ASYNC_EVD_MIN_QLEN_DEFAULT);
            assertSame(ia, registry.open("a0", 4));
            verify(a).open("a0", "", 4);
        }

        @Test
        void unknownNameListsTheKnownOnes() {
            DatRegistry registry = builder(provider("loopback", "loopback0", "loopback1")).build();
            DatException e = assertThrows(DatException.class, () -> registry.open("loopbak0"));
            assertEquals(DatReturn.PROVIDER_NOT_FOUND, e.type());
            assertEquals(DatReturnSubtype.NAME_NOT_REGISTERED, e.subtype());
            assertEquals("DAT_PROVIDER_NOT_FOUND/NAME_NOT_REGISTERED: dat_ia_open: no IA named 'loopbak0' is"
                    + " registered; did you mean loopback0 or loopback1?; known IAs: loopback0, loopback1",
                    e.getMessage());
        }

        @Test
        void aNullNameIsNoRegisteredName() {
            // Regression: open(null) threw NullPointerException where DatProvider.open answers PROVIDER_NOT_FOUND.
            DatRegistry registry = builder(provider("loopback", "loopback0")).build();
            DatException e = assertThrows(DatException.class, () -> registry.open(null));
            assertEquals(DatReturn.PROVIDER_NOT_FOUND, e.type());
            assertEquals(DatReturnSubtype.NAME_NOT_REGISTERED, e.subtype());
            assertTrue(e.getMessage().contains("ia_name is null") && e.getMessage().contains("loopback0"),
                    e.getMessage());
            assertEquals(DatReturn.PROVIDER_NOT_FOUND, assertThrows(DatException.class,
                    () -> registry.open(null, 4)).type());
        }

        @Test
        void emptyRegistrySaysSoAndNamesTheProviders() {
            DatProvider off = mock(DatProvider.class);
            when(off.name()).thenReturn("verbs");
            when(off.info()).thenReturn(DatProviderInfo.unavailable("verbs", "1", "no device", List.of()));
            DatException e = assertThrows(DatException.class, () -> builder(off).build().open("x"));
            assertTrue(e.getMessage().endsWith("no IAs are registered at all (providers: verbs (unavailable))"),
                    e::getMessage);
        }

        @Test
        void queueLengthBelowOneIsInvalid() {
            DatProvider a = provider("a", "a0");
            DatException e = assertThrows(DatException.class, () -> builder(a).build().open("a0", 0));
            assertEquals(DatReturn.INVALID_PARAMETER, e.type());
            assertEquals(DatReturnSubtype.INVALID_ARG2, e.subtype());
            verify(a, never()).open(anyString(), anyString(), anyInt());
        }

        @Test
        void unavailableIaFromAnExcludedProviderSaysWhy(@TempDir Path dir) throws Exception {
            Path conf = dir.resolve("dat.conf");
            Files.writeString(conf, "v0 u1.2 threadsafe default verbs dapl.1.2 \"\" \"\"\n");
            DatRegistry registry = builder(provider("verbs", "v9")).properties(Map.of("dat.providers", "^verbs"))
                    .datConf(conf).build();
            DatException e = assertThrows(DatException.class, () -> registry.open("v0"));
            assertEquals(DatReturn.PROVIDER_NOT_FOUND, e.type());
            assertEquals("DAT_PROVIDER_NOT_FOUND: dat_ia_open: IA v0 is unavailable: provider verbs is unavailable:"
                    + " excluded by dat.providers=^verbs", e.getMessage());
        }

        @Test
        void providerRuntimeFailureBecomesInternalErrorAndDatExceptionsPassThrough() {
            DatProvider a = provider("a", "a0", "a1");
            IllegalStateException bug = new IllegalStateException("bug");
            when(a.open("a0", "", 16)).thenThrow(bug);
            DatException refusal = new DatException(DatReturn.INSUFFICIENT_RESOURCES, "no more IAs");
            when(a.open("a1", "", 16)).thenThrow(refusal);
            DatRegistry registry = builder(a).build();
            DatException e = assertThrows(DatException.class, () -> registry.open("a0"));
            assertEquals(DatReturn.INTERNAL_ERROR, e.type());
            assertSame(bug, e.getCause());
            assertSame(refusal, assertThrows(DatException.class, () -> registry.open("a1")));
        }
    }

    @Nested
    class Select {

        @Test
        void matchesAndRejectionsInRegistryOrderWithReasons() {
            DatProvider verbs = mock(DatProvider.class);
            when(verbs.name()).thenReturn("verbs");
            when(verbs.info()).thenReturn(DatProviderInfo.unavailable("verbs", "1", "no device", List.of()));
            DatProvider loopback = Fixtures.provider("loopback", List.of(
                    ia("loopback0", "loopback", p -> p.srqSupported(true).optimalBufferAlignment(256), i -> i),
                    ia("loopback1", "loopback", p -> p.srqSupported(false).optimalBufferAlignment(64), i -> i),
                    ia("loopback2", "loopback", p -> p.srqSupported(true).optimalBufferAlignment(64), i -> i)));
            DatRegistry registry = builder(verbs, loopback).build();

            Selection s = registry.select("srq_supported && optimal_buffer_alignment <= 64");
            assertEquals(List.of("loopback2"), s.matches().stream().map(IaEntry::name).toList());
            assertEquals(List.of("loopback0", "loopback1"),
                    s.rejections().keySet().stream().map(IaEntry::name).toList());
            assertEquals(List.of("optimal_buffer_alignment <= 64 failed: actual 256"), s.reasons("loopback0"));
            assertEquals(List.of("srq_supported is false"), s.reasons("loopback1"));
            assertEquals(List.of(), s.reasons("loopback2"));
            assertEquals("loopback2", s.first().orElseThrow().name());
            assertEquals("""
                    query: srq_supported && optimal_buffer_alignment <= 64
                    loopback0: optimal_buffer_alignment <= 64 failed: actual 256
                    loopback1: srq_supported is false
                    loopback2: matches
                    """, s.toString());
        }

        @Test
        void unavailableIasAreRejectedWithTheirReason() {
            DatRegistry registry = builder(provider("a", "x0"), provider("b", "x0")).build();
            Selection s = registry.select(DatQuery.all());
            assertEquals(1, s.matches().size());
            assertEquals(List.of("unavailable: duplicate IA name x0: already offered by provider a (explicit)"),
                    s.rejections().values().iterator().next());
        }

        @Test
        void badQueryTextThrows() {
            DatRegistry registry = builder(provider("a", "a0")).build();
            assertThrows(DatQuerySyntaxException.class, () -> registry.select("srq_supported &&"));
        }
    }

    @Nested
    class Table {

        @Test
        void tableListsProvidersAndIasWithReasons() {
            DatProvider verbs = mock(DatProvider.class);
            when(verbs.name()).thenReturn("verbs");
            when(verbs.info()).thenReturn(DatProviderInfo.unavailable("verbs", "1", "no device", List.of()));
            String table = builder(provider("a", "a0"), verbs).build().toString();
            String[] lines = table.split("\n", -1);
            assertEquals("DAT providers (2):", lines[0]);
            assertTrue(lines[1].matches("  NAME +STATUS +SOURCE +CLASS +REASON"), lines[1]);
            assertTrue(lines[2].matches("  a +available +explicit +\\S+"), lines[2]);
            assertTrue(lines[3].matches("  verbs +unavailable +explicit +\\S+ +no device"), lines[3]);
            assertEquals("DAT IAs (1):", lines[4]);
            assertTrue(lines[6].matches("  a0 +a +available +explicit"), lines[6]);
        }
    }

    @Test
    void resolveNamesWhatExistsOrTheReason() {
        DatProvider absent = new DatProvider() {
            @Override
            public String name() {
                return "absent";
            }

            @Override
            public DatProviderInfo info() {
                return DatProviderInfo.unavailable("absent", "0.1", "no device\u001b[2J", List.of());
            }

            @Override
            public DatIa open(String iaName, String iaParams, int asyncEvdMinQlen) {
                throw new IllegalStateException("never opened");
            }
        };
        DatRegistry registry = builder(Fixtures.provider("p", "p0", "p1"), absent).build();
        assertEquals("p0", registry.resolve(null, null).name());
        assertEquals("p1", registry.resolve(null, "p1").name());
        assertEquals("p0", registry.resolve("p", null).name());
        IaResolutionException unknown = assertThrows(IaResolutionException.class,
                () -> registry.resolve(null, "x\u001b"));
        assertEquals("unknown IA 'x\\x1b'; IAs: p0 (provider p, available), p1 (provider p, available)",
                unknown.reason());
        assertEquals(DatReturn.PROVIDER_NOT_FOUND, unknown.type());
        assertEquals("no provider named q offers an IA; providers: p (available), absent (unavailable: no"
                + " device\\x1b[2J)", assertThrows(IaResolutionException.class,
                        () -> registry.resolve("q", null)).reason());
        assertEquals("provider absent is unavailable: no device\\x1b[2J",
                assertThrows(IaResolutionException.class, () -> registry.resolve("absent", null)).reason());
        assertEquals("IA p1 belongs to provider p, not absent",
                assertThrows(IaResolutionException.class, () -> registry.resolve("absent", "p1")).reason());
    }
}
