import { useEffect, useRef } from 'preact/hooks';

/**
 * A chart drawn in a container of the component: made once its data is `ready` (the container
 * is shown and has its size), kept across renders, disposed with the component.
 */
export function useChart<C extends { dispose(): void }>(make: (container: HTMLElement) => C, ready: boolean) {
  const container = useRef<HTMLDivElement>(null);
  const chart = useRef<C | null>(null);
  useEffect(() => {
    if (!ready || !container.current || chart.current) return;
    chart.current = make(container.current);
  }, [ready]);
  useEffect(
    () => () => {
      chart.current?.dispose();
      chart.current = null;
    },
    [],
  );
  return { container, chart };
}
