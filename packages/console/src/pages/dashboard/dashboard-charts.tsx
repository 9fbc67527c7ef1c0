import { theme } from 'antd';
import { BarChart, LineChart, MapChart, PieChart } from 'echarts/charts';
import { GridComponent, LegendComponent, TooltipComponent, VisualMapComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';
import { type CSSProperties, useEffect, useRef, useState } from 'react';

/**
 * The dashboard's charts: Apache ECharts, only the parts used (tree-shaken from echarts/core).
 * This module is loaded after the dashboard's first paint (dashboard.page.tsx), so ECharts is
 * not in the console's first load.
 */
echarts.use([
  LineChart,
  BarChart,
  PieChart,
  MapChart,
  GridComponent,
  TooltipComponent,
  LegendComponent,
  VisualMapComponent,
  CanvasRenderer,
]);

export type ChartOption = echarts.EChartsCoreOption;

/** One chart: sized by its box, redrawn on resize and when the option changes. */
export function EChart({
  option,
  height,
  label,
  testId,
  style,
}: {
  option: ChartOption;
  height: number;
  label: string;
  testId?: string;
  style?: CSSProperties;
}) {
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<echarts.ECharts | undefined>(undefined);
  useEffect(() => {
    if (!box.current) return;
    const instance = echarts.init(box.current, undefined, { renderer: 'canvas' });
    chart.current = instance;
    const observer = new ResizeObserver(() => instance.resize());
    observer.observe(box.current);
    return () => {
      observer.disconnect();
      instance.dispose();
      chart.current = undefined;
    };
  }, []);
  useEffect(() => {
    chart.current?.setOption(option, { notMerge: true });
  }, [option]);
  return (
    <div
      ref={box}
      role="img"
      aria-label={label}
      data-testid={testId}
      style={{ height, width: '100%', ...style }}
    />
  );
}

/** The palette of the console's theme, so the charts match antd. */
export function useChartColors() {
  const { token } = theme.useToken();
  return {
    primary: token.colorPrimary,
    success: token.colorSuccess,
    error: token.colorError,
    warning: token.colorWarning,
    text: token.colorTextSecondary,
    split: token.colorSplit,
    series: [token.colorPrimary, '#13c2c2', '#faad14', '#eb2f96', '#722ed1', '#52c41a', '#fa541c'],
  };
}

const mapsRegistered = new Set<string>();

/** Registers the map outlines (loaded from the packages bundled with the console) once. */
export function useMap(scope: 'world' | 'china'): boolean {
  const [ready, setReady] = useState(mapsRegistered.has(scope));
  useEffect(() => {
    if (mapsRegistered.has(scope)) {
      setReady(true);
      return;
    }
    let current = true;
    setReady(false);
    import('./map-outlines.ts').then(async (outlines) => {
      const geoJson = scope === 'world' ? outlines.worldCountries() : await outlines.chinaProvinces();
      echarts.registerMap(scope, geoJson as Parameters<typeof echarts.registerMap>[1]);
      mapsRegistered.add(scope);
      if (current) setReady(true);
    });
    return () => {
      current = false;
    };
  }, [scope]);
  return ready;
}
