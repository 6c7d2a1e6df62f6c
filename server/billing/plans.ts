import type { Config } from '../core/config.js';
import { PLANS } from '../core/db/tables.js';
import { httpError } from '../core/errors.js';
import { planLimits, type Limits } from './limits.js';

export type Plan = (typeof PLANS)[number];

/** The organization settings of the Custom Plan: only team pro may turn them on or change them. */
export const CUSTOM_PLAN_SETTINGS = ['banner_text', 'banner_color', 'banner_enabled', 'storycurve_logging_enabled'] as const;
type CustomSetting = (typeof CUSTOM_PLAN_SETTINGS)[number];
/** What a new organization starts with, so a create that repeats them is not refused. */
const CUSTOM_DEFAULTS: Record<CustomSetting, unknown> = {
  banner_text: null,
  banner_color: '#1565C0',
  banner_enabled: false,
  storycurve_logging_enabled: false,
};

export interface PlanEntry extends Limits {
  plan: Plan;
  label: string;
  /** Banner text, colour and switch, and story curve logging. */
  custom_settings: boolean;
  /** Bought through Stripe (free is the trial every organization starts with). */
  paid: boolean;
}

const PLAN_TABLE: Record<Plan, { label: string; custom_settings: boolean; paid: boolean }> = {
  free: { label: 'Free trial', custom_settings: false, paid: false },
  pro: { label: 'Pro', custom_settings: false, paid: true },
  team_pro: { label: 'Team Pro', custom_settings: true, paid: true },
};

export const planLabel = (plan: Plan) => PLAN_TABLE[plan].label;

/** Every plan and what it allows: the AI limits (with AI_LIMITS applied) and the Custom Plan settings. */
export function planTable(config: Config): PlanEntry[] {
  return PLANS.map((plan) => ({ ...planLimits(config, plan), plan, ...PLAN_TABLE[plan] }));
}

export const allowsCustomSettings = (plan: Plan) => PLAN_TABLE[plan].custom_settings;

/**
 * Refuses a change to a Custom Plan setting on a plan without it. `current` is the stored row (an
 * update) or undefined (a create): repeating the stored or default value is no change, so a form that
 * sends every field still saves.
 */
export function checkCustomSettings(plan: Plan, data: Record<string, unknown>, current?: Record<string, unknown>) {
  if (allowsCustomSettings(plan)) return;
  const before = current ?? CUSTOM_DEFAULTS;
  for (const field of CUSTOM_PLAN_SETTINGS) {
    if (!(field in data)) continue;
    const value = data[field] === '' ? null : data[field];
    const stored = before[field] === '' ? null : before[field];
    if (value !== stored)
      throw httpError(403, 'Banner and story curve settings need the Team Pro plan. Upgrade to change them.', 'plan_required', ['body', field]);
  }
}
