// The words of the console's charts (the table of numbers, its day column, the dashed line) in the
// console's language, for the dashboard's and a budget's charts.
import type { ChartWords } from '../../shared/charts.tsx';
import { useConsoleText } from '../i18n.ts';

export function useChartWords(): (caption: string) => ChartWords {
  const { t } = useConsoleText();
  return (caption) => ({
    numbers: t('dashboardPage.chartNumbers', { caption }),
    day: t('dashboardPage.chartDay'),
    dashed: t('dashboardPage.chartDashed'),
  });
}
