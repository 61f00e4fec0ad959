import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsString, MaxLength } from 'class-validator';
import { ID_SCHEMA } from '../../common/http/id.pipe';
import { GROUP_ROLES, GroupRole } from '../../access';

export class CreateGroupDto {
  @ApiProperty({
    example: 'team-a',
    description:
      'Up to 3 segments of [a-z0-9-]{1,64} (`team-a/backend`); a child needs Maintainer+ on its parent; `default`, `public`, `api`, `admin` are reserved',
  })
  @IsString()
  @MaxLength(200)
  name: string;
}

export const CREATE_GROUP_EXAMPLES = { group: { summary: 'A top-level group', value: { name: 'team-a' } } };

export const SET_MEMBER_EXAMPLES = {
  developer: { summary: 'Make the user a Developer', value: { role: 'Developer' } },
};

export class SetMemberDto {
  @ApiProperty({ enum: GROUP_ROLES, example: 'Developer' })
  @IsIn(GROUP_ROLES)
  role: GroupRole;
}

export class GroupDto {
  @ApiProperty({ ...ID_SCHEMA, example: 7 }) id: number;
  @ApiProperty({ example: 'team-a' }) name: string;
  @ApiProperty({ ...ID_SCHEMA, nullable: true, example: null, description: 'null for a top-level group' }) parent_id:
    number | null;
  @ApiProperty({ enum: GROUP_ROLES, nullable: true, description: 'Effective role (a parent role holds in children)' })
  my_role: GroupRole | null;
}

export class GroupListDto {
  @ApiProperty({ type: [GroupDto] }) items: GroupDto[];
}

export class MemberDto {
  @ApiProperty({ ...ID_SCHEMA, example: 2 }) user_id: number;
  @ApiProperty() user_name: string;
  @ApiProperty({ enum: GROUP_ROLES }) role: GroupRole;
}

export class MemberListDto {
  @ApiProperty({ type: [MemberDto] }) items: MemberDto[];
}

export class MembershipDto {
  @ApiProperty({ ...ID_SCHEMA, example: 7 }) group_id: number;
  @ApiProperty({ ...ID_SCHEMA, example: 2 }) user_id: number;
  @ApiProperty({ enum: GROUP_ROLES }) role: GroupRole;
}
