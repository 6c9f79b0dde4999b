import { trace } from '@opentelemetry/api';

/**
 * `assay run` with the standard OTLP variables set (OTEL_EXPORTER_OTLP_ENDPOINT or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT; OTEL_EXPORTER_OTLP_PROTOCOL http/json or http/protobuf; OTEL_SERVICE_NAME;
 * OTEL_SDK_DISABLED=true turns it off): the official OpenTelemetry SDK exports the run's spans over OTLP/HTTP.
 * The SDK packages are optional (`npm install @opentelemetry/sdk-trace-base @opentelemetry/resources
 * @opentelemetry/exporter-trace-otlp-http`, or -proto); without the variables nothing is loaded and tracing is a
 * no-op. Returns what flushes and stops it, or undefined when it is off.
 */
export async function startTracingFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  warn: (message: string) => void = () => {},
): Promise<{ shutdown(): Promise<void> } | undefined> {
  if (/^true$/i.test(env.OTEL_SDK_DISABLED ?? '')) return undefined;
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return undefined;
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/json').toLowerCase();
  if (protocol !== 'http/json' && protocol !== 'http/protobuf') {
    warn(`OTEL_EXPORTER_OTLP_PROTOCOL=${protocol}: assay exports traces over http/json or http/protobuf only; tracing is off`);
    return undefined;
  }
  const exporterPackage = protocol === 'http/json' ? '@opentelemetry/exporter-trace-otlp-http' : '@opentelemetry/exporter-trace-otlp-proto';
  let sdk: typeof import('@opentelemetry/sdk-trace-base');
  let resources: typeof import('@opentelemetry/resources');
  let exporter: { OTLPTraceExporter: new () => import('@opentelemetry/sdk-trace-base').SpanExporter };
  try {
    [sdk, resources, exporter] = await Promise.all([
      import('@opentelemetry/sdk-trace-base'),
      import('@opentelemetry/resources'),
      import(exporterPackage) as Promise<{ OTLPTraceExporter: new () => import('@opentelemetry/sdk-trace-base').SpanExporter }>,
    ]);
  } catch {
    warn(
      `OTEL_EXPORTER_OTLP_* is set, but the OpenTelemetry SDK is not installed: npm install @opentelemetry/sdk-trace-base @opentelemetry/resources ${exporterPackage}; tracing is off`,
    );
    return undefined;
  }
  const provider = new sdk.BasicTracerProvider({
    resource: resources.resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME ?? 'assay' }),
    spanProcessors: [new sdk.BatchSpanProcessor(new exporter.OTLPTraceExporter())],
  });
  trace.setGlobalTracerProvider(provider);
  return {
    async shutdown() {
      await provider.shutdown();
      trace.disable();
    },
  };
}
