import type zh from '../zh-CN/dashboard';
import type { MessagesOf } from '../types';

export default {
  'pages.dashboard.title': 'Data dashboard',
  'pages.dashboard.filter.timeRange.required': 'Please choose a time range',
  'pages.dashboard.filter.username': 'User name',
  'pages.dashboard.filter.granularity': 'Granularity',
  'pages.dashboard.granularity.hour': 'Hour',
  'pages.dashboard.granularity.day': 'Day',
  'pages.dashboard.granularity.week': 'Week',
  'pages.dashboard.hint': 'Usage is recorded per hour and merged into the chosen granularity.',
  'pages.dashboard.hint.selfLimit': ' You can look at 30 days at a time.',
  'pages.dashboard.total.quota': 'Total quota',
  'pages.dashboard.total.tokens': 'Total tokens',
  'pages.dashboard.total.count': 'Total requests',
  'pages.dashboard.empty': 'No data in the chosen time range',
  'pages.dashboard.chart.consumption': 'Consumption distribution',
  'pages.dashboard.chart.calls': 'Call count distribution',
  'pages.dashboard.chart.share': 'Consumption share by model',
  'pages.dashboard.models.title': 'Models',
  'pages.dashboard.models.model': 'Model',
  'pages.dashboard.models.quota': 'Quota consumed',
  'pages.dashboard.models.tokens': 'Tokens',
  'pages.dashboard.models.count': 'Requests',
} satisfies MessagesOf<typeof zh>;
